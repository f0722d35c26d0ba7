package io.lineflow.reconciler.model;

import org.apache.flink.kubernetes.operator.api.FlinkDeployment;

/**
 * Which FlinkDeployment: its namespace and name, the key of everything the reconciler keeps per
 * deployment (samples, Events announced, summaries, metrics, remediation, audit statuses).
 *
 * @param namespace {@code null} for a manifest that names none ({@code lint})
 */
public record DeploymentKey(String namespace, String name) implements Comparable<DeploymentKey> {

    /** The key of a deployment as the API server holds it. */
    public static DeploymentKey of(FlinkDeployment fd) {
        return new DeploymentKey(
                fd.getMetadata().getNamespace(), fd.getMetadata().getName());
    }

    /** {@code namespace/name}; the name alone when there is no namespace. */
    @Override
    public String toString() {
        return namespace == null ? name : namespace + "/" + name;
    }

    /** By the text: /metrics lists deployments in the order it did when they were keyed by it. */
    @Override
    public int compareTo(DeploymentKey other) {
        return toString().compareTo(other.toString());
    }
}
