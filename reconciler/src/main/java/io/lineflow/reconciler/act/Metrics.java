package io.lineflow.reconciler.act;

import io.lineflow.reconciler.checks.DuplicateConsumptionCheck;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.rules.table.WindowTable.Difference.Kind;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Prometheus metrics in the text exposition format, rebuilt per deployment on every pass. */
public final class Metrics {

    private final Configuration conf;
    private final Clock clock;
    private final Map<DeploymentKey, String> perDeployment = new ConcurrentHashMap<>();
    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong remediations = new AtomicLong();
    private volatile double lastPassSeconds = Double.NaN;
    private volatile int deployments;
    /** The audit's series of each audited deployment. */
    private final Map<DeploymentKey, AuditSeries> audits = new ConcurrentHashMap<>();

    /** The audit's metrics, in the order they are exposed, each with its HELP and TYPE lines. */
    private static final Map<String, String> AUDIT_HEADERS = auditHeaders();

    /** One audited deployment's series: the latest completed audit's rows and its run counters. */
    private static final class AuditSeries {
        final String labels;
        final AtomicLong completed = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        volatile Map<String, String> latest = Map.of();
        volatile Duration period;
        volatile double lastCompleted = Double.NaN;

        AuditSeries(String labels, Duration period) {
            this.labels = labels;
            this.period = period;
        }
    }

    public Metrics(Configuration conf, Clock clock) {
        this.conf = conf;
        this.clock = clock;
    }

    public void record(Observation o, HealthResult r) {
        String labels = "namespace=\"" + esc(o.spec().namespace()) + "\",name=\""
                + esc(o.spec().name()) + "\"";
        StringBuilder sb = new StringBuilder();
        gauge(
                sb,
                "lineflow_reconciler_health",
                labels,
                r.worst().map(s -> s.ordinal() + 1.0).orElse(0.0));
        for (Finding f : r.findings()) {
            gauge(
                    sb,
                    "lineflow_reconciler_finding",
                    labels + ",code=\"" + f.code() + "\",severity=\"" + f.severity() + "\"",
                    1);
        }
        FlinkObservation.Job job =
                o.flink() != null && o.flink().ok() ? o.flink().job() : null;
        if (job != null) {
            if (job.numRestarts() != null) {
                gauge(sb, "lineflow_reconciler_job_restarts", labels, job.numRestarts());
            }
            if (job.checkpoints() != null) {
                gauge(
                        sb,
                        "lineflow_reconciler_checkpoints_failed",
                        labels,
                        job.checkpoints().failed());
                gauge(
                        sb,
                        "lineflow_reconciler_checkpoints_completed",
                        labels,
                        job.checkpoints().completed());
                if (job.checkpoints().latestCompletedAt() != null) {
                    gauge(
                            sb,
                            "lineflow_reconciler_checkpoint_age_seconds",
                            labels,
                            Duration.between(job.checkpoints().latestCompletedAt(), clock.instant())
                                            .toMillis()
                                    / 1000.0);
                }
            }
        }
        DuplicateConsumptionCheck.coverage(o, conf)
                .ifPresent(coverage -> gauge(
                        sb,
                        "lineflow_reconciler_duplicates_judged",
                        labels + ",readers=\""
                                + esc(DuplicateConsumptionCheck.readerKinds(
                                        o.job().sources())) + "\"",
                        coverage.judged() ? 1 : 0));
        DuplicateConsumptionCheck.rates(o, conf).ifPresent(rates -> {
            gauge(sb, "lineflow_reconciler_duplicate_ratio", labels, rates.ratio());
            gauge(sb, "lineflow_reconciler_source_records_per_second", labels, rates.sourceRate());
            gauge(sb, "lineflow_reconciler_topic_produce_rate", labels, rates.produceRate());
        });
        if (o.kafka() != null && o.kafka().ok() && o.kafka().lag() != null) {
            gauge(sb, "lineflow_reconciler_consumer_lag", labels, o.kafka().lag());
        }
        perDeployment.put(o.spec().key(), sb.toString());
    }

    public void passDone(double seconds, int deploymentCount) {
        passes.incrementAndGet();
        lastPassSeconds = seconds;
        deployments = deploymentCount;
    }

    public void remediated() {
        remediations.incrementAndGet();
    }

    /** A completed audit of the deployment: its rows by result, its read, when and how long. */
    public void audited(DeploymentKey key, AuditReport r, Duration period) {
        AuditSeries s = auditSeries(key, period);
        s.completed.incrementAndGet();
        s.lastCompleted = r.at().toEpochMilli() / 1000.0 + r.took().toMillis() / 1000.0;
        String labels = s.labels;
        Map<String, String> latest = new LinkedHashMap<>();
        StringBuilder rows = new StringBuilder();
        gauge(rows, "lineflow_audit_rows", labels + ",result=\"matched\"", r.matched());
        gauge(rows, "lineflow_audit_rows", labels + ",result=\"missing\"", r.rows(Kind.MISSING));
        gauge(rows, "lineflow_audit_rows", labels + ",result=\"extra\"", r.rows(Kind.EXTRA));
        gauge(rows, "lineflow_audit_rows", labels + ",result=\"wrong\"", r.rows(Kind.WRONG));
        gauge(
                rows,
                "lineflow_audit_rows",
                labels + ",result=\"unjudged\"",
                r.unjudged().size());
        latest.put("lineflow_audit_rows", rows.toString());
        StringBuilder unjudged = new StringBuilder();
        for (AuditReport.Reason reason : AuditReport.Reason.values()) {
            gauge(unjudged, "lineflow_audit_unjudged_rows", labels + ",reason=\"" + reason + "\"", r.unjudged(reason));
        }
        latest.put("lineflow_audit_unjudged_rows", unjudged.toString());
        latest.put(
                "lineflow_audit_downtime_not_judged_rows",
                line("lineflow_audit_downtime_not_judged_rows", labels, r.downtimeNotJudged()));
        latest.put("lineflow_audit_records_read", line("lineflow_audit_records_read", labels, r.recordsRead()));
        latest.put("lineflow_audit_events_counted", line("lineflow_audit_events_counted", labels, r.counted()));
        latest.put(
                "lineflow_audit_last_duration_seconds",
                line("lineflow_audit_last_duration_seconds", labels, r.took().toMillis() / 1000.0));
        s.latest = latest;
    }

    /**
     * The audit of the deployment is scheduled: its period and run counters are exported from now
     * on, at zero.
     */
    public void auditScheduled(DeploymentKey key, Duration period) {
        auditSeries(key, period);
    }

    /** An audit of the deployment that could not complete: the rows of the latest completed one stay. */
    public void auditFailed(DeploymentKey key, Duration period) {
        auditSeries(key, period).failed.incrementAndGet();
    }

    /** A deployment the audit cannot judge now: no series of runs (its finding says why). */
    public void auditNotRun(DeploymentKey key) {
        audits.remove(key);
    }

    /** Keeps the audit's series of these deployments only. */
    public void retainAudits(Set<DeploymentKey> keys) {
        audits.keySet().retainAll(keys);
    }

    private AuditSeries auditSeries(DeploymentKey key, Duration period) {
        AuditSeries s = audits.computeIfAbsent(
                key,
                k -> new AuditSeries(
                        "namespace=\"" + esc(k.namespace()) + "\",deployment=\"" + esc(k.name()) + "\"", period));
        s.period = period;
        return s;
    }

    private static Map<String, String> auditHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(
                "lineflow_audit_rows",
                "# HELP lineflow_audit_rows Rows of the latest completed audit by result; unjudged rows are"
                        + " neither matched nor mismatched.\n# TYPE lineflow_audit_rows gauge\n");
        h.put("lineflow_audit_unjudged_rows", "# TYPE lineflow_audit_unjudged_rows gauge\n");
        h.put(
                "lineflow_audit_downtime_not_judged_rows",
                "# HELP lineflow_audit_downtime_not_judged_rows Judged rows whose downtime alone was not judged"
                        + " (the stop carried from before the read).\n"
                        + "# TYPE lineflow_audit_downtime_not_judged_rows gauge\n");
        h.put("lineflow_audit_records_read", "# TYPE lineflow_audit_records_read gauge\n");
        h.put("lineflow_audit_events_counted", "# TYPE lineflow_audit_events_counted gauge\n");
        h.put("lineflow_audit_last_duration_seconds", "# TYPE lineflow_audit_last_duration_seconds gauge\n");
        h.put("lineflow_audit_period_seconds", "# TYPE lineflow_audit_period_seconds gauge\n");
        h.put(
                "lineflow_audit_last_completed_timestamp_seconds",
                "# HELP lineflow_audit_last_completed_timestamp_seconds When the latest audit completed"
                        + " (NaN: none yet).\n# TYPE lineflow_audit_last_completed_timestamp_seconds gauge\n");
        h.put("lineflow_audit_runs_total", "# TYPE lineflow_audit_runs_total counter\n");
        return h;
    }

    /** Every audited deployment's series, each metric's samples together under its header. */
    private String renderAudits() {
        if (audits.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        Map<DeploymentKey, AuditSeries> sorted = new TreeMap<>(audits);
        AUDIT_HEADERS.forEach((metric, header) -> {
            sb.append(header);
            for (AuditSeries s : sorted.values()) {
                switch (metric) {
                    case "lineflow_audit_period_seconds" -> gauge(sb, metric, s.labels, s.period.toMillis() / 1000.0);
                    case "lineflow_audit_last_completed_timestamp_seconds" ->
                        gauge(sb, metric, s.labels, s.lastCompleted);
                    case "lineflow_audit_runs_total" -> {
                        gauge(sb, metric, s.labels + ",outcome=\"completed\"", s.completed.get());
                        gauge(sb, metric, s.labels + ",outcome=\"failed\"", s.failed.get());
                    }
                    default -> sb.append(s.latest.getOrDefault(metric, ""));
                }
            }
        });
        return sb.toString();
    }

    public void retainOnly(Set<DeploymentKey> keys) {
        perDeployment.keySet().retainAll(keys);
    }

    /** The whole exposition. */
    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append(
                "# HELP lineflow_reconciler_health Worst finding severity per deployment: 0 healthy/none, 1 info, 2 warning, 3 critical.\n");
        sb.append("# TYPE lineflow_reconciler_health gauge\n");
        sb.append("# HELP lineflow_reconciler_finding 1 for every finding currently reported.\n");
        sb.append("# TYPE lineflow_reconciler_finding gauge\n");
        sb.append(
                "# HELP lineflow_reconciler_duplicate_ratio Source records/s divided by the topic's consume rate (about 2 when doubled).\n");
        sb.append("# TYPE lineflow_reconciler_duplicate_ratio gauge\n");
        sb.append(
                "# HELP lineflow_reconciler_duplicates_judged 1 when a running job's consumption can be compared"
                        + " with its topic's, 0 when it cannot (DUPLICATES_NOT_JUDGED says why); readers: the kinds recognised.\n");
        sb.append("# TYPE lineflow_reconciler_duplicates_judged gauge\n");
        new TreeMap<>(perDeployment).values().forEach(sb::append);
        sb.append("# TYPE lineflow_reconciler_passes_total counter\n");
        sb.append("lineflow_reconciler_passes_total ").append(passes.get()).append('\n');
        sb.append("# TYPE lineflow_reconciler_remediations_total counter\n");
        sb.append("lineflow_reconciler_remediations_total ")
                .append(remediations.get())
                .append('\n');
        sb.append("# TYPE lineflow_reconciler_last_pass_seconds gauge\n");
        sb.append("lineflow_reconciler_last_pass_seconds ")
                .append(num(lastPassSeconds))
                .append('\n');
        sb.append("# TYPE lineflow_reconciler_deployments gauge\n");
        sb.append("lineflow_reconciler_deployments ").append(deployments).append('\n');
        sb.append(renderAudits());
        return sb.toString();
    }

    private static void gauge(StringBuilder sb, String name, String labels, double value) {
        sb.append(name)
                .append('{')
                .append(labels)
                .append("} ")
                .append(num(value))
                .append('\n');
    }

    private static String line(String name, String labels, double value) {
        StringBuilder sb = new StringBuilder();
        gauge(sb, name, labels, value);
        return sb.toString();
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.4f", v);
    }

    private static String esc(String s) {
        return s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
