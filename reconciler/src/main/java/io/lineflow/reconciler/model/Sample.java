package io.lineflow.reconciler.model;

import java.time.Instant;
import java.util.List;

/**
 * The few figures of an earlier observation that rate and trend checks compare against.
 * Any figure may be {@code null} when it was not observed.
 *
 * @param topics the topics the Kafka figures are summed over; empty when Kafka was not read
 */
public record Sample(
        Instant at,
        Long numRestarts,
        Long checkpointsFailed,
        List<String> topics,
        Long endOffsetSum,
        Long committedOffsetSum,
        Long lag) {

    public Sample {
        topics = topics == null ? List.of() : List.copyOf(topics);
    }

    /** The sample to keep from an observation. */
    public static Sample of(Observation o) {
        FlinkObservation.Job job = o.flink() == null ? null : o.flink().job();
        KafkaObservation k = o.kafka() != null && o.kafka().ok() ? o.kafka() : null;
        return new Sample(
                o.observedAt(),
                job == null ? null : job.numRestarts(),
                job == null || job.checkpoints() == null
                        ? null
                        : job.checkpoints().failed(),
                k == null ? List.of() : k.topics(),
                k == null ? null : k.endOffsetSum(),
                k == null ? null : k.committedOffsetSum(),
                k == null ? null : k.lag());
    }
}
