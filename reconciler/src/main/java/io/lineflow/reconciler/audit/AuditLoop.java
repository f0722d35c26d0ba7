package io.lineflow.reconciler.audit;

import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_DEPLOYMENT;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_JDBC_URL;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_JDBC_USER;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_MAX_RECORDS;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_PERIOD;
import static io.lineflow.reconciler.ReconcilerOptions.AUDIT_SPAN;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_BOOTSTRAP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_GROUP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_SECURITY_PROTOCOL;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TIMEOUT;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TOPIC;

import io.lineflow.reconciler.act.Metrics;
import io.lineflow.rules.Rules;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.CommonClientConfigs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The continuous audit: {@link Audit} every {@code audit.period} over the last {@code audit.span},
 * on a thread of its own so a long read never delays the health passes. Its latest report becomes
 * the metrics and enters the audited deployment's observation, where {@link
 * io.lineflow.reconciler.checks.AuditCheck} judges it (and so its Events and summary).
 *
 * <p>A loop in the reconciler rather than a CronJob: the reconciler already runs in the cluster
 * with Kafka access, serves the metrics and writes the Events and summary of the deployment; a
 * CronJob would need its own way to publish each of them.
 */
public final class AuditLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuditLoop.class);

    private final Audit.Settings settings;
    private final Duration period;
    private final String deployment;
    private final Metrics metrics;
    private final Clock clock;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lineflow-audit");
        t.setDaemon(true);
        return t;
    });
    private volatile AuditReport latest;

    public AuditLoop(Audit.Settings settings, Duration period, String deployment, Metrics metrics, Clock clock) {
        this.settings = settings;
        this.period = period;
        this.deployment = deployment;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The loop of a configuration, or null when {@code audit.jdbc-url} is empty (no audit). Kafka's
     * address, topic and group are the reconciler's defaults ({@code kafka.*}); the rules are the
     * job's defaults.
     */
    public static AuditLoop of(Configuration conf, Map<String, String> env, Metrics metrics, Clock clock) {
        String url = conf.get(AUDIT_JDBC_URL);
        if (url == null || url.isBlank()) {
            return null;
        }
        Audit.Settings settings = new Audit.Settings(
                conf.get(KAFKA_BOOTSTRAP),
                Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, conf.get(KAFKA_SECURITY_PROTOCOL).name),
                conf.get(KAFKA_TOPIC),
                conf.get(KAFKA_GROUP),
                conf.get(AUDIT_SPAN),
                Rules.defaults(),
                conf.get(AUDIT_MAX_RECORDS),
                url,
                conf.get(AUDIT_JDBC_USER),
                env.get("LINEFLOW_JDBC_PASSWORD"),
                conf.get(KAFKA_TIMEOUT).plusSeconds(25));
        return new AuditLoop(settings, conf.get(AUDIT_PERIOD), conf.get(AUDIT_DEPLOYMENT), metrics, clock);
    }

    /** Starts the audits: the first at once, then {@code audit.period} after each one ends. */
    public void start() {
        metrics.auditScheduled(deployment, period);
        loop.scheduleWithFixedDelay(this::runSafely, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One audit; a failure is logged and counted, never thrown. */
    public void runSafely() {
        long started = System.nanoTime();
        try {
            AuditReport r = Audit.run(settings, clock);
            latest = r;
            metrics.audited(deployment, r, period);
            LOG.info("Audit of {}: {}", deployment, String.join(" | ", r.lines().subList(0, 2)));
            if (!r.clean()) {
                r.differences().stream().limit(20).forEach(d -> LOG.warn("Audit of {}: {}", deployment, d));
            }
        } catch (Exception e) {
            // The message only: a JDBC error never carries the password, and the URL is not secret.
            LOG.error(
                    "Audit of {} failed after {} ms: {}",
                    deployment,
                    (System.nanoTime() - started) / 1_000_000,
                    e.toString());
            metrics.auditFailed(deployment, period);
        }
    }

    /** The latest completed audit, or null. */
    public AuditReport latest() {
        return latest;
    }

    /**
     * The latest completed audit if it is of the deployment {@code namespace/name} (named by
     * {@code audit.deployment} with or without its namespace), else {@code null}.
     */
    public AuditReport latestFor(String namespace, String name) {
        return deployment.equals(name) || deployment.equals(namespace + "/" + name) ? latest : null;
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
