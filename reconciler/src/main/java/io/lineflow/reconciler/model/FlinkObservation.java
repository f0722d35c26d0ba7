package io.lineflow.reconciler.model;

import io.lineflow.flinkrest.KafkaReader;

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

    /** This observation with only the job's readers of {@code topic} as its sources. */
    public FlinkObservation reading(String topic) {
        return job == null ? this : new FlinkObservation(restUrl, error, job.reading(topic));
    }

    /**
     * One job.
     *
     * @param numRestarts the {@code numRestarts} job metric, {@code null} if not available
     * @param checkpoints {@code null} only if the REST API did not answer for checkpoints
     * @param sources every Kafka reader of the topic the duplicate check judges; empty if none
     *     was recognised
     * @param otherTopics topics other recognised readers of the job read, not judged
     */
    public record Job(
            String id,
            String name,
            JobStatus state,
            Instant startTime,
            Long numRestarts,
            Checkpoints checkpoints,
            List<Source> sources,
            Set<String> otherTopics) {

        public Job {
            sources = sources == null ? List.of() : List.copyOf(sources);
            otherTopics = otherTopics == null ? Set.of() : Set.copyOf(otherTopics);
        }

        /** The topics the job's recognised readers read. */
        public Set<String> topicsRead() {
            Set<String> all = new TreeSet<>(otherTopics);
            sources.forEach(s -> all.add(s.topic()));
            return all;
        }

        /**
         * The topic whose consumption is judged when none is named: the one topic the recognised
         * readers read; of several, {@code fallback} if it is one of them, else {@code null}; with
         * no reader recognised, {@code fallback}.
         */
        public String topicToJudge(String fallback) {
            Set<String> topics = topicsRead();
            if (topics.isEmpty() || topics.contains(fallback)) {
                return fallback;
            }
            return topics.size() == 1 ? topics.iterator().next() : null;
        }

        /**
         * This job with only the readers of {@code topic} as its sources, the other readers'
         * topics kept in {@link #otherTopics}.
         */
        public Job reading(String topic) {
            Set<String> others = new TreeSet<>(topicsRead());
            others.remove(topic);
            return new Job(
                    id,
                    name,
                    state,
                    startTime,
                    numRestarts,
                    checkpoints,
                    sources.stream().filter(s -> s.topic().equals(topic)).toList(),
                    others);
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

        /** The sources whose kind has a metric per assignment, so that their assignments can be counted. */
        public List<Source> countedSources() {
            return sources.stream().filter(s -> s.reader().countsAssignments()).toList();
        }

        /** (source, reader, partition) assignments over the sources whose assignments are counted. */
        public int assignedSplits() {
            return countedSources().stream().mapToInt(Source::assignedSplits).sum();
        }

        /** Partitions read by at least one reader of a source whose assignments are counted. */
        public Set<Integer> partitionsRead() {
            Set<Integer> all = new TreeSet<>();
            countedSources().forEach(s -> all.addAll(s.partitions()));
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

        /** What Flink reports for a job without periodic checkpoints: nothing but that. */
        public static Checkpoints disabled() {
            return new Builder(false).build();
        }

        /** Checkpointing on; every other figure unknown (or zero, for the counts) until set. */
        public static Builder builder() {
            return new Builder(true);
        }

        /** Builds {@link Checkpoints} by name rather than by position. */
        public static final class Builder {
            private final boolean enabled;
            private Duration interval;
            private Duration timeout;
            private Integer tolerableFailures;
            private Boolean externalized;
            private long completed;
            private long failed;
            private long inProgress;
            private Long latestCompletedId;
            private Instant latestCompletedAt;
            private String latestCompletedExternalPath;
            private Instant latestFailedAt;
            private String latestFailureMessage;

            private Builder(boolean enabled) {
                this.enabled = enabled;
            }

            /** The configuration from {@code /checkpoints/config}. */
            public Builder config(
                    Duration interval, Duration timeout, Integer tolerableFailures, Boolean externalized) {
                this.interval = interval;
                this.timeout = timeout;
                this.tolerableFailures = tolerableFailures;
                this.externalized = externalized;
                return this;
            }

            public Builder completed(long completed) {
                this.completed = completed;
                return this;
            }

            public Builder failed(long failed) {
                this.failed = failed;
                return this;
            }

            public Builder inProgress(long inProgress) {
                this.inProgress = inProgress;
                return this;
            }

            /** The latest completed checkpoint: its id, acknowledgement time and external path. */
            public Builder latestCompleted(Long id, Instant at, String externalPath) {
                this.latestCompletedId = id;
                this.latestCompletedAt = at;
                this.latestCompletedExternalPath = externalPath;
                return this;
            }

            /** The latest failed checkpoint: when it failed and why. */
            public Builder latestFailed(Instant at, String message) {
                this.latestFailedAt = at;
                this.latestFailureMessage = message;
                return this;
            }

            public Checkpoints build() {
                return new Checkpoints(
                        enabled,
                        interval,
                        timeout,
                        tolerableFailures,
                        externalized,
                        completed,
                        failed,
                        inProgress,
                        latestCompletedId,
                        latestCompletedAt,
                        latestCompletedExternalPath,
                        latestFailedAt,
                        latestFailureMessage);
            }
        }
    }

    /**
     * One vertex with a Kafka reader of one topic, recognised by the per-partition metric its kind
     * of reader registers ({@link KafkaReader}), whatever the vertex is called.
     *
     * @param reader the kind of reader, and so the metric it was recognised by
     * @param recordsOutPerSecond sum over subtasks of the reading operator's output rate (1-minute
     *     meter), {@code null} if Flink did not report it
     * @param assignedSplits number of (reader, partition) assignments of the topic; meaningful only
     *     when the kind {@linkplain KafkaReader#countsAssignments() counts them}
     * @param partitions the distinct partitions among those assignments
     */
    public record Source(
            String vertexId,
            String vertexName,
            int parallelism,
            KafkaReader reader,
            String topic,
            Double recordsOutPerSecond,
            int assignedSplits,
            Set<Integer> partitions) {

        public Source {
            partitions = Set.copyOf(partitions);
        }

        /** What a report says of how this source was recognised. */
        public String recognition() {
            return reader.label() + " '" + vertexName + "' (by " + reader.metric() + ")";
        }
    }
}
