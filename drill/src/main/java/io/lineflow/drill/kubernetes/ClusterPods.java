package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.ApiServer.read;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The pods of the job's namespace, found by their labels, and Kubernetes HA's ConfigMap of the
 * FlinkDeployment {@code name}, which says which of its JobManager pods leads.
 */
record ClusterPods(KubernetesClient client, String namespace, String name) {
    static final Map<String, String> JM = Map.of("app", FlinkCluster.NAME, "component", "jobmanager");
    static final Map<String, String> TM = Map.of("app", FlinkCluster.NAME, "component", "taskmanager");

    /**
     * Kubernetes HA's ConfigMap of the cluster: the leader election's lock (an annotation naming
     * the holder, a fresh id per JobManager process) and each leading component's address.
     */
    private static final String HA_SUFFIX = "-cluster-config-map";

    static final String HA_CONFIG_MAP = FlinkCluster.NAME + HA_SUFFIX;

    private static final String LOCK_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";
    private static final Pattern HOLDER = Pattern.compile("\"holderIdentity\"\\s*:\\s*\"([^\"]*)\"");
    private static final String LEADER_KEY_PREFIX = "org.apache.flink.k8s.leader.";
    private static final Pattern ADDRESS = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,3}){3})");

    /** The labels native Kubernetes gives the deployment's pods of {@code component} (jobmanager, taskmanager). */
    Map<String, String> labelsOf(String component) {
        return Map.of("app", name, "component", component);
    }

    /** The pods with {@code labels}; empty while they cannot be listed. */
    Optional<List<Pod>> withLabels(Map<String, String> labels) {
        return read(() ->
                client.pods().inNamespace(namespace).withLabels(labels).list().getItems());
    }

    /** The uids of the pods with {@code labels}: a replaced pod changes them. */
    Set<String> uids(Map<String, String> labels) {
        return withLabels(labels).orElse(List.of()).stream()
                .map(p -> p.getMetadata().getUid())
                .collect(Collectors.toSet());
    }

    /** The images of the first container of each pod with {@code labels}, space-separated. */
    String images(Map<String, String> labels) {
        return withLabels(labels).orElse(List.of()).stream()
                .map(p -> p.getSpec().getContainers().get(0).getImage())
                .collect(Collectors.joining(" "));
    }

    /** The JobManager pods that are not being deleted. */
    List<Pod> jobManagers() {
        return withLabels(labelsOf("jobmanager")).orElse(List.of()).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    /**
     * Who holds the JobManagers' leader election, as its lock records it: an id that changes with
     * every new leader, also when the same pod's restarted JobManager wins; "" while unknown.
     */
    String leaderHolder() {
        return haConfigMap()
                .map(c -> c.getMetadata().getAnnotations())
                .map(a -> a.get(LOCK_ANNOTATION))
                .map(HOLDER::matcher)
                .filter(Matcher::find)
                .map(m -> m.group(1))
                .orElse("");
    }

    /**
     * The JobManager pod that leads: the one whose IP every leading component's address in the HA
     * ConfigMap names, among the JobManager pods not being deleted; empty while they disagree
     * (leadership changing hands) or no such pod runs.
     */
    Optional<Pod> leader() {
        List<String> ips = haConfigMap().map(ConfigMap::getData).orElse(Map.of()).entrySet().stream()
                .filter(e -> e.getKey().startsWith(LEADER_KEY_PREFIX))
                .map(e -> ADDRESS.matcher(e.getValue()))
                .map(m -> m.find() ? m.group(1) : "")
                .distinct()
                .toList();
        if (ips.size() != 1 || ips.get(0).isEmpty()) {
            return Optional.empty();
        }
        return jobManagers().stream()
                .filter(p ->
                        p.getStatus() != null && ips.get(0).equals(p.getStatus().getPodIP()))
                .findFirst();
    }

    /** The id containerd knows the pod's Flink container by ("" before it has started). */
    static String flinkContainerId(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
                ? ""
                : pod.getStatus().getContainerStatuses().stream()
                        .filter(c -> "flink-main-container".equals(c.getName()) && c.getContainerID() != null)
                        .map(c -> c.getContainerID().replaceFirst("^[a-z]+://", ""))
                        .findFirst()
                        .orElse("");
    }

    private Optional<ConfigMap> haConfigMap() {
        return read(() -> client.configMaps()
                .inNamespace(namespace)
                .withName(name + HA_SUFFIX)
                .get());
    }
}
