package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.FlinkObservation;

/** Reads a job's figures from a Flink REST endpoint. Implementations never throw: errors go in the result. */
public interface FlinkRestClient {

    /**
     * Observes the running (or most recent) job behind {@code restUrl}.
     *
     * @param topic the input topic: the Kafka sources reading it are found by their readers'
     *     per-partition metrics
     */
    FlinkObservation observe(String restUrl, String topic);
}
