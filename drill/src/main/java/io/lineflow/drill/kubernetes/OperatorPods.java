package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.ApiServer.read;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The Flink Kubernetes Operator's pods in {@code namespace}: which image it runs, and whether it is up. */
record OperatorPods(KubernetesClient client, String namespace) {
    static final Map<String, String> OPERATOR = Map.of("app.kubernetes.io/name", "flink-kubernetes-operator");

    /** The images of the operator's pods that are not being deleted, space-separated. */
    String images() {
        return live().stream()
                .map(p -> p.getSpec().getContainers().get(0).getImage())
                .collect(Collectors.joining(" "));
    }

    /** Whether an operator pod that is not being deleted is Ready: the new one after a restart. */
    boolean ready() {
        return live().stream().anyMatch(OperatorPods::isReady);
    }

    /** The operator's pods that are not being deleted; none while they cannot be listed. */
    private List<Pod> live() {
        return read(() -> client.pods()
                        .inNamespace(namespace)
                        .withLabels(OPERATOR)
                        .list()
                        .getItems())
                .orElse(List.of())
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private static boolean isReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
