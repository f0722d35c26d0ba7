package io.lineflow.reconciler.model;

import java.time.Instant;
import java.util.List;

/**
 * Everything observed about one FlinkDeployment in one pass, plus earlier samples for trends.
 *
 * @param status {@code null} when not read from a cluster (e.g. `lint` or a plain REST URL)
 * @param flink {@code null} when the Flink REST API was not asked (spec-only evaluation)
 * @param kafka {@code null} when Kafka was not asked
 * @param history earlier samples of the same deployment, oldest first
 * @param audit the continuous audit of this deployment: its latest completed audit, or why it
 *     cannot be audited; {@code null} when it is not audited or nothing is known yet
 */
public record Observation(
        Instant observedAt,
        SpecObservation spec,
        KubernetesStatus status,
        FlinkObservation flink,
        KafkaObservation kafka,
        List<Sample> history,
        AuditStatus audit) {

    public Observation {
        history = List.copyOf(history == null ? List.of() : history);
    }

    /** An observation without an audit (the CLI's checks, a deployment not audited). */
    public Observation(
            Instant observedAt,
            SpecObservation spec,
            KubernetesStatus status,
            FlinkObservation flink,
            KafkaObservation kafka,
            List<Sample> history) {
        this(observedAt, spec, status, flink, kafka, history, null);
    }

    /** The job Flink reported; {@code null} when Flink was not asked, could not be read or runs no job. */
    public FlinkObservation.Job job() {
        return flink != null && flink.ok() ? flink.job() : null;
    }

    public Observation withHistory(List<Sample> earlier) {
        return new Observation(observedAt, spec, status, flink, kafka, earlier, audit);
    }

    /** This observation with the audit's status of its deployment ({@code null}: none). */
    public Observation withAudit(AuditStatus latest) {
        return new Observation(observedAt, spec, status, flink, kafka, history, latest);
    }
}
