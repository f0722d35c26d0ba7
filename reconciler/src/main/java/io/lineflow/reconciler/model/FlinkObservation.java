package io.lineflow.reconciler.model;

import org.apache.flink.api.common.JobStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

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
     * @param sources every Kafka source vertex reading the input topic; empty if none was found
     */
    public record Job(
            String id,
            String name,
            JobStatus state,
            Instant startTime,
            Long numRestarts,
            Checkpoints checkpoints,
            List<Source> sources) {

        public Job {
            sources = sources == null ? List.of() : List.copyOf(sources);
        }

        /**
         * What all sources emit together, records/s; {@code null} if there is no source or one
         * source's rate is unknown (a partial sum would understate a double read).
         */
        public Double sourceRecordsOutPerSecond() {
            if (sources.isEmpty() || sources.stream().anyMatch(s -> s.recordsOutPerSecond() == null)) {
                return null;
            }
            return sources.stream().mapToDouble(Source::recordsOutPerSecond).sum();
        }

        /** (source, reader, partition) assignments over all sources. */
        public int assignedSplits() {
            return sources.stream().mapToInt(Source::assignedSplits).sum();
        }

        /** Partitions read by at least one reader of any source. */
        public Set<Integer> partitionsRead() {
            Set<Integer> all = new TreeSet<>();
            sources.forEach(s -> all.addAll(s.partitions()));
            return all;
        }
    }

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
     * One Kafka source vertex reading the input topic, recognised by its readers' per-partition
     * metrics ({@code KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset}), whatever its name.
     *
     * @param recordsOutPerSecond sum over subtasks of the source operator's output rate (1-minute
     *     meter), {@code null} if Flink did not report it
     * @param assignedSplits number of (reader, partition) assignments for the input topic
     * @param partitions the distinct partitions among those assignments
     */
    public record Source(
            String vertexId,
            String vertexName,
            int parallelism,
            Double recordsOutPerSecond,
            int assignedSplits,
            Set<Integer> partitions) {

        public Source {
            partitions = Set.copyOf(partitions);
        }
    }
}
