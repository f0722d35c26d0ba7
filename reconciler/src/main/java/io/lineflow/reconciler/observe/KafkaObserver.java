package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.KafkaObservation;

import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/** Reads topic and consumer-group figures from Kafka. Implementations never throw: errors go in the result. */
public interface KafkaObserver extends AutoCloseable {

    /** The figures of {@code topics} and the group's offsets on them, summed over the topics. */
    KafkaObservation observe(String bootstrap, Collection<String> topics, String groupId);

    /** The names of the broker's topics; empty when they cannot be read. */
    Optional<Set<String>> topicNames(String bootstrap);

    @Override
    default void close() {}
}
