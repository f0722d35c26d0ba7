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
 */
public record Observation(
        Instant observedAt,
        SpecObservation spec,
        KubernetesStatus status,
        FlinkObservation flink,
        KafkaObservation kafka,
        List<Sample> history) {

    public Observation {
        history = List.copyOf(history == null ? List.of() : history);
    }

    /** The job Flink reported; {@code null} when Flink was not asked, could not be read or runs no job. */
    public FlinkObservation.Job job() {
        return flink != null && flink.ok() ? flink.job() : null;
    }

    public Observation withHistory(List<Sample> earlier) {
        return new Observation(observedAt, spec, status, flink, kafka, earlier);
    }
}
