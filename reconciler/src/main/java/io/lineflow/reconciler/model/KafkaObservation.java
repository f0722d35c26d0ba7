package io.lineflow.reconciler.model;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * What Kafka admin reported about the job's input topics at one moment: the topics one reader, or
 * readers linked by a topic they share, read together (usually one), their figures summed.
 *
 * @param topics the topics, in name order
 * @param error why Kafka could not be read, {@code null} on success
 * @param partitions partition count of the topics together
 * @param endOffsetSum sum of the latest offsets over all partitions (grows by the produce count)
 * @param committedOffsetSum sum of the consumer group's committed offsets, {@code null} if none
 * @param lag end minus committed, over partitions with a committed offset; {@code null} if none
 * @param retention the shortest {@code retention.ms} of the topics, {@code null} if unlimited or
 *     unknown
 */
public record KafkaObservation(
        String bootstrap,
        List<String> topics,
        String groupId,
        Instant observedAt,
        String error,
        Integer partitions,
        Long endOffsetSum,
        Long committedOffsetSum,
        Long lag,
        Duration retention) {

    public KafkaObservation {
        topics = List.copyOf(new TreeSet<>(topics));
    }

    /** What was asked, and why it could not be answered. */
    public static KafkaObservation failed(
            String bootstrap, Collection<String> topics, String groupId, Instant at, String error) {
        return new Builder(bootstrap, topics, groupId, at, error).build();
    }

    /** A successful observation of {@code topics}; the figures not set stay unknown. */
    public static Builder builder(String bootstrap, Collection<String> topics, String groupId, Instant at) {
        return new Builder(bootstrap, topics, groupId, at, null);
    }

    /** The topics as a report names them: {@code a}, or {@code a, b}. */
    public String topic() {
        return String.join(", ", topics);
    }

    /** Builds a {@link KafkaObservation} with its figures by name rather than by position. */
    public static final class Builder {
        private final String bootstrap;
        private final Collection<String> topics;
        private final String groupId;
        private final Instant observedAt;
        private final String error;
        private Integer partitions;
        private Long endOffsetSum;
        private Long committedOffsetSum;
        private Long lag;
        private Duration retention;

        private Builder(String bootstrap, Collection<String> topics, String groupId, Instant observedAt, String error) {
            this.bootstrap = bootstrap;
            this.topics = topics;
            this.groupId = groupId;
            this.observedAt = observedAt;
            this.error = error;
        }

        public Builder partitions(Integer partitions) {
            this.partitions = partitions;
            return this;
        }

        public Builder endOffsetSum(Long endOffsetSum) {
            this.endOffsetSum = endOffsetSum;
            return this;
        }

        public Builder committedOffsetSum(Long committedOffsetSum) {
            this.committedOffsetSum = committedOffsetSum;
            return this;
        }

        public Builder lag(Long lag) {
            this.lag = lag;
            return this;
        }

        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        public KafkaObservation build() {
            return new KafkaObservation(
                    bootstrap,
                    List.copyOf(topics),
                    groupId,
                    observedAt,
                    error,
                    partitions,
                    endOffsetSum,
                    committedOffsetSum,
                    lag,
                    retention);
        }
    }

    public boolean ok() {
        return error == null;
    }
}
