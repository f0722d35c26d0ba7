package io.lineflow.reconciler.controller;

import static io.lineflow.reconciler.ReconcilerOptions.PARALLELISM;

import io.lineflow.reconciler.act.EventPublisher;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.act.Remediator;
import io.lineflow.reconciler.act.SummaryPublisher;
import io.lineflow.reconciler.audit.AuditLoop;
import io.lineflow.reconciler.checks.HealthEvaluator;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.HistoryStore;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * One pass over a set of FlinkDeployments: each deployment observed, evaluated (pure) and acted on
 * (its Events and summary written) on a pool, so that a pass over many deployments waits for the
 * API server and Flink's REST in parallel rather than one round trip after another.
 */
public final class Reconciler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

    private final DeploymentObserver observer;
    private final AuditLoop audit;
    private final HealthEvaluator evaluator;
    private final EventPublisher events;
    private final SummaryPublisher summary;
    private final Remediator remediator;
    private final Metrics metrics;
    private final HistoryStore history;
    private final Clock clock;
    private final ExecutorService pool;

    /**
     * @param audit the continuous audit, {@code null} for none: each pass hands it the deployments
     *     watched, and each one's observation holds its latest status
     */
    public Reconciler(
            Configuration conf,
            DeploymentObserver observer,
            AuditLoop audit,
            EventPublisher events,
            SummaryPublisher summary,
            Remediator remediator,
            Metrics metrics,
            HistoryStore history,
            Clock clock) {
        this.observer = observer;
        this.audit = audit;
        this.evaluator = new HealthEvaluator(conf, clock);
        this.events = events;
        this.summary = summary;
        this.remediator = remediator;
        this.metrics = metrics;
        this.history = history;
        this.clock = clock;
        int n = conf.get(PARALLELISM);
        this.pool = Executors.newFixedThreadPool(Math.max(1, n), r -> {
            Thread t = new Thread(r, "lineflow-observe");
            t.setDaemon(true);
            return t;
        });
    }

    /** Reconciles every deployment given; returns each one's result. */
    public Map<DeploymentKey, HealthResult> pass(Collection<FlinkDeployment> deployments) {
        long start = System.nanoTime();
        List<FlinkDeployment> list = new ArrayList<>(deployments);
        if (audit != null) {
            audit.watch(list);
        }
        List<Future<HealthResult>> done = new ArrayList<>();
        for (FlinkDeployment fd : list) {
            done.add(pool.submit(() -> evaluateAndAct(fd, observe(fd))));
        }
        Map<DeploymentKey, HealthResult> results = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            DeploymentKey key = DeploymentKey.of(list.get(i));
            try {
                results.put(key, done.get(i).get());
            } catch (ExecutionException e) {
                LOG.error("Reconciling {} failed", key, e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Set<DeploymentKey> keys = list.stream().map(DeploymentKey::of).collect(Collectors.toSet());
        history.retainOnly(keys);
        events.retainOnly(keys);
        summary.retainOnly(keys);
        metrics.retainOnly(keys);
        metrics.passDone((System.nanoTime() - start) / 1e9, list.size());
        return results;
    }

    /** What a pass knows of the deployment: what is observed now, earlier samples, the audit's latest status. */
    private Observation observe(FlinkDeployment fd) {
        Observation now = observer.observe(fd);
        DeploymentKey key = now.spec().key();
        return now.withHistory(history.get(key)).withAudit(audit == null ? null : audit.latestFor(key));
    }

    private HealthResult evaluateAndAct(FlinkDeployment fd, Observation o) {
        HealthResult result = evaluator.evaluate(o);
        history.add(o.spec().key(), Sample.of(o));
        events.publish(fd, result);
        summary.publish(fd, result);
        metrics.record(o, result);
        remediator.maybeRemediate(fd, result).ifPresent(pods -> metrics.remediated());
        return result;
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
