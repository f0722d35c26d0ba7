package io.lineflow.drill.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * How the drill asks the Kubernetes API server, as its kubectl calls did: once, and a read the
 * server does not answer (it may be restarting) is empty, as a failed {@code kubectl get} was.
 */
final class ApiServer {
    private ApiServer() {}

    /**
     * A request may take as long as the drill's kubectl calls could (30 s), and is tried once: a
     * read the API server does not answer is unknown for this poll, as a failed {@code kubectl
     * get} was, not retried with a backoff that would hold up the timeline.
     */
    static Config asKubectl(Config config) {
        return new ConfigBuilder(config)
                .withRequestTimeout(30_000)
                .withRequestRetryBackoffLimit(0)
                .build();
    }

    /** What {@code get} reads; empty when it reads nothing or the API server does not answer. */
    static <T> Optional<T> read(Supplier<T> get) {
        try {
            return Optional.ofNullable(get.get());
        } catch (KubernetesClientException e) {
            return Optional.empty();
        }
    }
}
