package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.FlinkObservation;

/** Reads a job's figures from a Flink REST endpoint. Implementations never throw: errors go in the result. */
public interface FlinkRestClient {

    /**
     * Observes the running (or most recent) job behind {@code restUrl}.
     *
     * @param sourceOperator name of the Kafka source operator, e.g. {@code kafka-source}
     * @param topic the input topic, used to count per-partition reader assignments
     */
    FlinkObservation observe(String restUrl, String sourceOperator, String topic);
}
