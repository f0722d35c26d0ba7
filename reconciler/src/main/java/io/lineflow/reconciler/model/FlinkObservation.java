package io.lineflow.reconciler.model;

import java.time.Duration;
import java.time.Instant;

/**
 * What the Flink REST API reported about the job at one moment.
 *
 * @param restUrl the endpoint that was asked
 * @param error why the endpoint could not be read, {@code null} on success
 * @param job the job's figures, {@code null} if no job was found or on error
 */
public record FlinkObservation(String restUrl, String error, Job job) {

    public static FlinkObservation failed(String restUrl, String error) {
        return new FlinkObservation(restUrl, error, null);
    }

    public boolean ok() {
        return error == null;
    }

    /**
     * One job.
     *
     * @param numRestarts the {@code numRestarts} job metric, {@code null} if not available
     * @param checkpoints {@code null} only if the REST API did not answer for checkpoints
     * @param source the Kafka source vertex, {@code null} if not found
     */
    public record Job(
            String id,
            String name,
            String state,
            Instant startTime,
            Long numRestarts,
            Checkpoints checkpoints,
            Source source) {}

    /**
     * Checkpoint configuration and statistics from {@code /jobs/:id/checkpoints[/config]}.
     *
     * @param enabled false when Flink says checkpointing is off (404 or an infinite interval)
     * @param latestCompletedAt acknowledgement time of the latest completed checkpoint
     * @param latestCompletedExternalPath its external path ({@code null} if not externally addressable)
     */
    public record Checkpoints(
            boolean enabled,
            Duration interval,
            Duration timeout,
            Integer tolerableFailures,
            Boolean externalized,
            long completed,
            long failed,
            long inProgress,
            Long latestCompletedId,
            Instant latestCompletedAt,
            String latestCompletedExternalPath,
            Instant latestFailedAt,
            String latestFailureMessage) {

        public static Checkpoints disabled() {
            return new Checkpoints(false, null, null, null, null, 0, 0, 0, null, null, null, null, null);
        }
    }

    /**
     * The Kafka source vertex.
     *
     * @param recordsOutPerSecond sum over subtasks of the source's output rate (1-minute meter)
     * @param assignedSplits number of (reader, partition) assignments for the input topic seen in the
     *     readers' per-partition metrics; {@code null} if those metrics are absent
     * @param distinctPartitions number of distinct partitions among those assignments
     */
    public record Source(
            String vertexId,
            String vertexName,
            int parallelism,
            Double recordsOutPerSecond,
            Integer assignedSplits,
            Integer distinctPartitions) {}
}
