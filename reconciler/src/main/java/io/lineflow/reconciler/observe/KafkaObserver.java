package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.KafkaObservation;

/** Reads topic and consumer-group figures from Kafka. Implementations never throw: errors go in the result. */
public interface KafkaObserver extends AutoCloseable {

    KafkaObservation observe(String bootstrap, String topic, String groupId);

    @Override
    default void close() {}
}
