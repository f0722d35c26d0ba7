package io.lineflow.reconciler.controller;

import static io.lineflow.reconciler.ReconcilerOptions.INTERVAL;
import static io.lineflow.reconciler.ReconcilerOptions.LABEL_SELECTOR;
import static io.lineflow.reconciler.ReconcilerOptions.NAMESPACES;

import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The long-running loop: informers on FlinkDeployments, a pass every interval, liveness and readiness. */
public final class ReconcilerController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReconcilerController.class);

    private final KubernetesClient client;
    private final Reconciler reconciler;
    private final Duration interval;
    private final Clock clock;
    private final List<SharedIndexInformer<FlinkDeployment>> informers = new ArrayList<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lineflow-reconcile");
        t.setDaemon(true);
        return t;
    });
    private final Instant startedAt;
    private volatile Instant lastPassEnd;

    public ReconcilerController(KubernetesClient client, Configuration conf, Reconciler reconciler, Clock clock) {
        this.client = client;
        this.reconciler = reconciler;
        this.interval = conf.get(INTERVAL);
        this.clock = clock;
        this.startedAt = clock.instant();
        String selector = conf.get(LABEL_SELECTOR);
        List<String> namespaces = conf.get(NAMESPACES);
        if (namespaces.isEmpty()) {
            informers.add(select(client.resources(FlinkDeployment.class).inAnyNamespace(), selector)
                    .runnableInformer(0));
        } else {
            for (String ns : namespaces) {
                informers.add(select(client.resources(FlinkDeployment.class).inNamespace(ns.trim()), selector)
                        .runnableInformer(0));
            }
        }
    }

    private static FilterWatchListDeletable<
                    FlinkDeployment, KubernetesResourceList<FlinkDeployment>, Resource<FlinkDeployment>>
            select(
                    FilterWatchListDeletable<
                                    FlinkDeployment, KubernetesResourceList<FlinkDeployment>, Resource<FlinkDeployment>>
                            op,
                    String selector) {
        return selector == null || selector.isBlank() ? op : op.withLabelSelector(selector);
    }

    /** Starts the informers and the periodic pass. */
    public void start() {
        startInformers();
        loop.scheduleWithFixedDelay(this::passSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Starts only the informers (the pass is then driven by {@link #passSafely}). */
    public void startInformers() {
        informers.forEach(SharedIndexInformer::run);
    }

    /** One pass over every deployment the informers know; skipped until they have synced. */
    public void passSafely() {
        if (!ready()) {
            LOG.info("Informers not synced yet; skipping this pass");
            return;
        }
        try {
            List<FlinkDeployment> all = new ArrayList<>();
            for (SharedIndexInformer<FlinkDeployment> i : informers) {
                all.addAll(i.getStore().list());
            }
            reconciler.pass(all);
            lastPassEnd = clock.instant();
        } catch (RuntimeException | LinkageError e) {
            // A scheduled pass that throws ends the passes for good, silently: log it and go on.
            LOG.error("Reconcile pass failed", e);
        }
    }

    /** Ready once every informer has synced. */
    public boolean ready() {
        return informers.stream().allMatch(SharedIndexInformer::hasSynced);
    }

    /** Live while passes keep finishing (allowing three intervals, or start-up). */
    public boolean live() {
        Instant reference = lastPassEnd != null ? lastPassEnd : startedAt;
        return Duration.between(reference, clock.instant())
                        .compareTo(interval.multipliedBy(3).plusSeconds(60))
                < 0;
    }

    @Override
    public void close() {
        loop.shutdownNow();
        informers.forEach(SharedIndexInformer::close);
        reconciler.close();
    }
}
