package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.ApiServer.read;

import io.lineflow.reconciler.ReconcilerOptions;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.configuration.Configuration;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the in-cluster reconciler says of the FlinkDeployment {@code name}: its summary ConfigMap
 * and the Events on the deployment; and the settings it runs with, from its Deployment.
 */
record ReconcilerOutputs(KubernetesClient client, String namespace, String name) {
    /** The reconciler's summary ConfigMap of a deployment is its name with this suffix (its default). */
    private static final String HEALTH_SUFFIX = "-lineflow-health";

    static final String HEALTH = FlinkCluster.NAME + HEALTH_SUFFIX;

    /** The reconciler's Deployment, in the job's namespace (manifests/reconciler). */
    static final String RECONCILER = FlinkCluster.NAME + "-reconciler";

    static final String STATUS_ANNOTATION = "lineflow.io/status";

    /**
     * The in-cluster reconciler's settings as it reads them at start: the env of its Deployment
     * {@value #RECONCILER}'s container, those given a value (one from a Secret or a field is no
     * setting the drill times by).
     *
     * @throws IllegalStateException when the Deployment cannot be read
     */
    Configuration settings() {
        Deployment deployment = read(() -> client.apps()
                        .deployments()
                        .inNamespace(namespace)
                        .withName(RECONCILER)
                        .get())
                .orElseThrow(() -> new IllegalStateException(
                        "the reconciler's Deployment " + RECONCILER + " in " + namespace + " could not be read"));
        Map<String, String> env = new TreeMap<>();
        deployment.getSpec().getTemplate().getSpec().getContainers().stream()
                .flatMap(c -> c.getEnv().stream())
                .filter(e -> e.getValue() != null)
                .forEach(e -> env.put(e.getName(), e.getValue()));
        return ReconcilerOptions.fromMap(ReconcilerOptions.fromEnv(env));
    }

    /** Whether an Event with {@code reason} was reported on the FlinkDeployment's name. */
    boolean eventReported(String reason) {
        return read(() -> client.v1().events().inNamespace(namespace).list().getItems()).orElse(List.of()).stream()
                .anyMatch(e -> reason.equals(e.getReason())
                        && e.getInvolvedObject() != null
                        && name.equals(e.getInvolvedObject().getName()));
    }

    /** The reconciler's summary ConfigMap; empty while it cannot be read or does not exist. */
    Optional<ConfigMap> health() {
        return read(() -> client.configMaps()
                .inNamespace(namespace)
                .withName(name + HEALTH_SUFFIX)
                .get());
    }

    /** The reconciler's verdict on its summary; "" when there is none. */
    String healthStatus() {
        return health().map(c -> c.getMetadata().getAnnotations())
                .map(a -> a.get(STATUS_ANNOTATION))
                .orElse("");
    }
}
