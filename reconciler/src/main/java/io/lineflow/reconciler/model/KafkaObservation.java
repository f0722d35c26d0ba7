package io.lineflow.reconciler.model;

import java.time.Duration;
import java.time.Instant;

/**
 * What Kafka admin reported about the job's input topic at one moment.
 *
 * @param error why Kafka could not be read, {@code null} on success
 * @param partitions partition count of the topic
 * @param endOffsetSum sum of the latest offsets over all partitions (grows by the produce count)
 * @param committedOffsetSum sum of the consumer group's committed offsets, {@code null} if none
 * @param lag end minus committed, over partitions with a committed offset; {@code null} if none
 * @param retention the topic's {@code retention.ms}, {@code null} if unlimited or unknown
 */
public record KafkaObservation(
        String bootstrap,
        String topic,
        String groupId,
        Instant observedAt,
        String error,
        Integer partitions,
        Long endOffsetSum,
        Long committedOffsetSum,
        Long lag,
        Duration retention) {

    public static KafkaObservation failed(String bootstrap, String topic, String groupId, Instant at, String error) {
        return new KafkaObservation(bootstrap, topic, groupId, at, error, null, null, null, null, null);
    }

    public boolean ok() {
        return error == null;
    }
}
