package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.FlinkObservation;

/** Reads a job's figures from a Flink REST endpoint. Implementations never throw: errors go in the result. */
public interface FlinkRestClient {

    /**
     * Observes the running (or most recent) job behind {@code restUrl}.
     *
     * @param topic the topic whose readers are wanted, or {@code null} for the readers of every
     *     topic: Kafka readers are recognised by their per-partition metrics ({@link
     *     io.lineflow.flinkrest.KafkaReader})
     */
    FlinkObservation observe(String restUrl, String topic);
}
