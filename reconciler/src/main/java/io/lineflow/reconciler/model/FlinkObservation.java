package io.lineflow.reconciler.model;

import io.lineflow.flinkrest.KafkaReader;

import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

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
     * This observation with only the readers of the topics in {@code unit} as its sources ({@link
     * Job#reading}).
     */
    public FlinkObservation reading(Set<String> unit) {
        return job == null ? this : new FlinkObservation(restUrl, error, job.reading(unit));
    }

    /** This observation with its readers' topics renamed by {@code kafkaName} ({@link Job#renamed}). */
    public FlinkObservation renamed(UnaryOperator<String> kafkaName) {
        return job == null ? this : new FlinkObservation(restUrl, error, job.renamed(kafkaName));
    }

    /**
     * One job.
     *
     * @param numRestarts the {@code numRestarts} job metric, {@code null} if not available
     * @param checkpoints {@code null} only if the REST API did not answer for checkpoints
     * @param sources every Kafka reader of the topics the duplicate check judges; empty if none
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
            sources.forEach(s -> all.addAll(s.topics()));
            return all;
        }

        /**
         * The job's reading units: each a set of topics that one reader, or readers linked by a
         * topic they share, read together. A reader's output can only be compared with everything
         * it reads, so a unit is what the duplicate check judges as one.
         */
        public List<Set<String>> units() {
            List<Set<String>> units = new ArrayList<>();
            for (Source s : sources) {
                Set<String> merged = new TreeSet<>(s.topics());
                for (Iterator<Set<String>> it = units.iterator(); it.hasNext(); ) {
                    Set<String> unit = it.next();
                    if (!Collections.disjoint(unit, merged)) {
                        merged.addAll(unit);
                        it.remove();
                    }
                }
                units.add(merged);
            }
            return units;
        }

        /**
         * The unit whose consumption is judged: the one holding {@code topic} when it is named
         * (only {@code topic} itself when no recognised reader reads it: the source vertex may, on
         * the deployment's word); else the job's only unit; of several, the one holding {@code
         * fallback}; else none. With no reader recognised, {@code fallback} alone.
         */
        public Optional<Set<String>> unitToJudge(String topic, String fallback) {
            List<Set<String>> units = units();
            if (topic != null) {
                return Optional.of(holding(units, topic).orElse(Set.of(topic)));
            }
            if (units.isEmpty()) {
                return Optional.ofNullable(fallback).map(Set::of);
            }
            return units.size() == 1 ? Optional.of(units.get(0)) : holding(units, fallback);
        }

        private static Optional<Set<String>> holding(List<Set<String>> units, String topic) {
            return units.stream().filter(u -> u.contains(topic)).findFirst();
        }

        /**
         * This job with only the readers of {@code unit}'s topics as its sources, the other
         * readers' topics kept in {@link #otherTopics}.
         */
        public Job reading(Set<String> unit) {
            Set<String> others = new TreeSet<>(topicsRead());
            others.removeAll(unit);
            return withReaders(
                    sources.stream()
                            .filter(s -> !Collections.disjoint(s.topics(), unit))
                            .toList(),
                    others);
        }

        /**
         * This job with every topic its readers name renamed by {@code kafkaName}: Flink's metric
         * listing writes a topic's dots as underscores, Kafka has it with them.
         */
        public Job renamed(UnaryOperator<String> kafkaName) {
            return withReaders(
                    sources.stream().map(s -> s.renamed(kafkaName)).toList(),
                    otherTopics.stream().map(kafkaName).collect(Collectors.toSet()));
        }

        /** This job with other sources and other topics outside them. */
        private Job withReaders(List<Source> readers, Set<String> topicsOutside) {
            return new Job(id, name, state, startTime, numRestarts, checkpoints, readers, topicsOutside);
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

        /** (source, subtask, partition) assignments over the sources whose assignments are counted. */
        public int assignedSplits() {
            return countedSources().stream().mapToInt(Source::assignedSplits).sum();
        }

        /** Partitions read by at least one reader of a source whose assignments are counted. */
        public Set<TopicPartition> partitionsRead() {
            Set<TopicPartition> all = new HashSet<>();
            countedSources().forEach(s -> all.addAll(s.partitions()));
            return all;
        }

        /**
         * The counted sources that hold one of their partitions in more than one reader: the shape
         * of a reader restored twice, which no job is built to have.
         */
        public List<Source> sourcesHoldingAPartitionTwice() {
            return countedSources().stream()
                    .filter(s -> s.assignedSplits() > s.partitions().size())
                    .toList();
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
     * One reading operator of a vertex, recognised by the per-partition metric its kind of reader
     * registers ({@link KafkaReader}), whatever the vertex is called, with every topic it reads.
     *
     * @param reader the kind of reader, and so the metric it was recognised by
     * @param topics the topics it reads: as the metric listing names them when observed, as Kafka
     *     names them once {@linkplain #renamed renamed}
     * @param recordsOutPerSecond sum over subtasks of the reading operator's output rate (1-minute
     *     meter), {@code null} if Flink did not report it
     * @param assignedSplits number of (subtask, partition) assignments of its topics; meaningful
     *     only when the kind {@linkplain KafkaReader#countsAssignments() counts them}
     * @param partitions the distinct partitions among those assignments
     */
    public record Source(
            String vertexId,
            String vertexName,
            int parallelism,
            KafkaReader reader,
            Set<String> topics,
            Double recordsOutPerSecond,
            int assignedSplits,
            Set<TopicPartition> partitions) {

        public Source {
            topics = Collections.unmodifiableSet(new TreeSet<>(topics));
            partitions = Set.copyOf(partitions);
        }

        /** What a report says of how this source was recognised. */
        public String recognition() {
            return reader.label() + " '" + vertexName + "' (by " + reader.metric() + ") reading "
                    + String.join(", ", topics);
        }

        /** This source with its topics renamed by {@code kafkaName}. */
        Source renamed(UnaryOperator<String> kafkaName) {
            return new Source(
                    vertexId,
                    vertexName,
                    parallelism,
                    reader,
                    topics.stream().map(kafkaName).collect(Collectors.toSet()),
                    recordsOutPerSecond,
                    assignedSplits,
                    partitions.stream()
                            .map(p -> new TopicPartition(kafkaName.apply(p.topic()), p.partition()))
                            .collect(Collectors.toSet()));
        }
    }
}
