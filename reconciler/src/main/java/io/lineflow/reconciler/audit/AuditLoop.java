package io.lineflow.reconciler.audit;

import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_JDBC_URL;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_PERIOD;

import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.AuditStatus;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.Annotations;
import io.lineflow.reconciler.observe.SpecReader;
import io.lineflow.settings.ConfigException;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The continuous audit of every lineflow deployment the reconciler watches: every {@code
 * audit.period}, each one in turn ({@link Audit} over the last {@code audit.span}), with the topic,
 * group and rules its own job's settings give it ({@link JobSettings}, {@link AuditPlan}), on a
 * thread of its own so a long read never delays the health passes. A deployment opts out with the
 * annotation {@code lineflow.io/audit: "false"}. Each one's latest status becomes its metrics and
 * enters its observation, where {@link io.lineflow.reconciler.checks.AuditCheck} judges it (and so
 * its Events and summary).
 *
 * <p>A loop in the reconciler rather than a CronJob: the reconciler already runs in the cluster
 * with Kafka access, serves the metrics and writes the Events and summary of the deployment; a
 * CronJob would need its own way to publish each of them.
 */
public final class AuditLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuditLoop.class);

    private final Configuration conf;
    private final String password;
    private final JobSettings.ConfigMaps configMaps;
    private final Duration period;
    private final Metrics metrics;
    private final Clock clock;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lineflow-audit");
        t.setDaemon(true);
        return t;
    });
    private final Map<DeploymentKey, AuditStatus> statuses = new ConcurrentHashMap<>();
    private volatile List<FlinkDeployment> audited = List.of();
    private boolean watching;
    private boolean started;
    private boolean scheduled;

    /**
     * @param conf the reconciler's settings (its connections, {@code audit.*})
     * @param password the database password ({@code LINEFLOW_JDBC_PASSWORD}), or null
     * @param configMaps where the jobs' settings files are read from
     */
    public AuditLoop(
            Configuration conf, String password, JobSettings.ConfigMaps configMaps, Metrics metrics, Clock clock) {
        this.conf = conf;
        this.password = password;
        this.configMaps = configMaps;
        this.period = conf.get(AUDIT_PERIOD);
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The loop of a configuration, or null when {@code audit.jdbc-url} is empty (no audit). The
     * password comes from the environment, the jobs' settings files from the API server.
     */
    public static AuditLoop of(
            Configuration conf, Map<String, String> env, KubernetesClient client, Metrics metrics, Clock clock) {
        String url = conf.get(AUDIT_JDBC_URL);
        if (url == null || url.isBlank()) {
            return null;
        }
        return new AuditLoop(conf, env.get("LINEFLOW_JDBC_PASSWORD"), JobSettings.from(client), metrics, clock);
    }

    /** Whether a deployment is audited: it runs lineflow's job and is not annotated out. */
    public static boolean audits(FlinkDeployment fd) {
        SpecObservation spec = SpecReader.spec(fd);
        return spec.hasJob()
                && spec.lineflowJob()
                && !"false"
                        .equalsIgnoreCase(spec.annotations()
                                .getOrDefault(Annotations.AUDIT, "")
                                .trim());
    }

    /**
     * The deployments the reconciler watches now (each pass hands them over): those it audits are
     * audited from the next round on, the others' status and metrics dropped. Each audited one's
     * runs are counted from now, at zero until a round completes, so that rounds which never come
     * (a loop stopped for any reason) are seen by {@code LineflowAuditNotCompleting} rather than
     * leaving no series at all; one found not auditable has none (its AUDIT_NOT_RUN says why).
     */
    public synchronized void watch(Collection<FlinkDeployment> deployments) {
        audited = deployments.stream().filter(AuditLoop::audits).toList();
        Set<DeploymentKey> keys = audited.stream().map(DeploymentKey::of).collect(Collectors.toSet());
        statuses.keySet().retainAll(keys);
        metrics.retainAudits(keys);
        for (DeploymentKey key : keys) {
            AuditStatus status = statuses.get(key);
            if (status == null || status.notAudited() == null) {
                metrics.auditScheduled(key, period);
            } else {
                metrics.auditNotRun(key);
            }
        }
        watching = true;
        scheduleOnce();
    }

    /** Starts the rounds: the first once the deployments are known, then {@code audit.period} after each ends. */
    public synchronized void start() {
        started = true;
        scheduleOnce();
    }

    private void scheduleOnce() {
        if (started && watching && !scheduled) {
            scheduled = true;
            loop.scheduleWithFixedDelay(this::runSafely, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** One round: every audited deployment in turn; a failure is logged and counted, never thrown. */
    public void runSafely() {
        for (FlinkDeployment fd : audited) {
            auditSafely(fd);
        }
    }

    /** One deployment's audit: its settings read, planned and run; the outcome kept as its status. */
    void auditSafely(FlinkDeployment fd) {
        DeploymentKey key = DeploymentKey.of(fd);
        long started = System.nanoTime();
        try {
            Audit.Settings settings;
            try {
                settings = AuditPlan.of(
                        JobSettings.read(fd, configMaps), SpecReader.spec(fd).annotations(), conf, password);
            } catch (ConfigException e) {
                notAudited(key, "reading its job's settings found: " + String.join("; ", e.problems()));
                return;
            } catch (AuditPlan.NotAuditable e) {
                notAudited(key, e.getMessage());
                return;
            }
            metrics.auditScheduled(key, period);
            AuditReport r = Audit.run(settings, clock);
            if (audited.stream().map(DeploymentKey::of).noneMatch(key::equals)) {
                return; // no longer watched while it ran
            }
            // Metrics first: whoever sees the status (the reconciler's pass, a test) sees them too.
            metrics.audited(key, r, period);
            statuses.put(key, AuditStatus.completed(r));
            LOG.info("Audit of {}: {}", key, String.join(" | ", r.lines().subList(0, 2)));
            if (!r.clean()) {
                r.differences().stream().limit(20).forEach(d -> LOG.warn("Audit of {}: {}", key, d));
            }
        } catch (Exception | LinkageError e) {
            // A class missing from the image too: thrown out of a scheduled round, it would end the
            // rounds for good without a word. The message only: a JDBC error never carries the
            // password, and the URL is not secret.
            LOG.error(
                    "Audit of {} failed after {} ms: {}", key, (System.nanoTime() - started) / 1_000_000, e.toString());
            metrics.auditFailed(key, period);
        }
    }

    private void notAudited(DeploymentKey key, String why) {
        LOG.warn("Audit of {}: not audited: {}", key, why);
        metrics.auditNotRun(key);
        statuses.put(key, AuditStatus.notAudited(why));
    }

    /** The audit's status of the deployment, or null (not audited, or nothing yet). */
    public AuditStatus latestFor(DeploymentKey key) {
        return statuses.get(key);
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
