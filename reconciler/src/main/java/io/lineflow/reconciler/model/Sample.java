package io.lineflow.reconciler.model;

import java.time.Instant;

/**
 * The few figures of an earlier observation that rate and trend checks compare against.
 * Any figure may be {@code null} when it was not observed.
 */
public record Sample(
        Instant at,
        Long numRestarts,
        Long checkpointsFailed,
        Long endOffsetSum,
        Long committedOffsetSum,
        Long lag) {

    /**
     * Flink's failed-checkpoint count, once the job has completed a checkpoint. Before that the
     * count holds the triggers refused while tasks were still being scheduled ("Not all required
     * tasks are currently running"): on Kubernetes every start waits for TaskManager pods, so
     * those refusals are routine, and Flink itself does not hold them against the tolerable
     * failures. A job that never completes one is CHECKPOINT_STALE instead.
     */
    private static Long failedSinceFirstCheckpoint(FlinkObservation.Job job) {
        if (job == null || job.checkpoints() == null || job.checkpoints().completed() == 0) {
            return null;
        }
        return job.checkpoints().failed();
    }

    /** The sample to keep from an observation. */
    public static Sample of(Observation o) {
        FlinkObservation.Job job = o.flink() == null ? null : o.flink().job();
        KafkaObservation k = o.kafka() != null && o.kafka().ok() ? o.kafka() : null;
        return new Sample(
                o.observedAt(),
                job == null ? null : job.numRestarts(),
                failedSinceFirstCheckpoint(job),
                k == null ? null : k.endOffsetSum(),
                k == null ? null : k.committedOffsetSum(),
                k == null ? null : k.lag());
    }
}
