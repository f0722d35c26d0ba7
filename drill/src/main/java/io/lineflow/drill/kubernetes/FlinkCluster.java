package io.lineflow.drill.kubernetes;

import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.flinkrest.ReaderPartition;
import io.lineflow.flinkrest.TaskManager;
import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.observe.OperatorClient;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;
import org.apache.flink.kubernetes.operator.api.status.JobStatus;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What the Kubernetes drill reads of the cluster, and the one change it makes to the spec, through
 * fabric8 with the operator's own types: the FlinkDeployment {@code lineflow}, its pods, the
 * operator's pods and what the reconciler reports. A read the API server does not answer (it may
 * be restarting) is empty, as a failed {@code kubectl get} was.
 */
final class FlinkCluster {
    static final String NAME = "lineflow";
    static final Map<String, String> JM = Map.of("app", NAME, "component", "jobmanager");
    static final Map<String, String> TM = Map.of("app", NAME, "component", "taskmanager");
    static final Map<String, String> OPERATOR = Map.of("app.kubernetes.io/name", "flink-kubernetes-operator");
    /** The reconciler's summary ConfigMap of a deployment is its name with this suffix (its default). */
    private static final String HEALTH_SUFFIX = "-lineflow-health";

    static final String HEALTH = NAME + HEALTH_SUFFIX;

    /** The reconciler's Deployment, in the job's namespace (manifests/reconciler). */
    static final String RECONCILER = NAME + "-reconciler";

    static final String STATUS_ANNOTATION = "lineflow.io/status";

    /**
     * Kubernetes HA's ConfigMap of the cluster: the leader election's lock (an annotation naming
     * the holder, a fresh id per JobManager process) and each leading component's address.
     */
    private static final String HA_SUFFIX = "-cluster-config-map";

    static final String HA_CONFIG_MAP = NAME + HA_SUFFIX;

    private static final String LOCK_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";
    private static final Pattern HOLDER = Pattern.compile("\"holderIdentity\"\\s*:\\s*\"([^\"]*)\"");
    private static final String LEADER_KEY_PREFIX = "org.apache.flink.k8s.leader.";
    private static final int REST_PORT = 8081;
    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(5));
    private static final Pattern ADDRESS = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,3}){3})");
    /** FlinkDeployments read as plain objects: what the operator wrote, whatever this API knows. */
    private static final ResourceDefinitionContext FLINK_DEPLOYMENTS = new ResourceDefinitionContext.Builder()
            .withGroup("flink.apache.org")
            .withVersion("v1beta1")
            .withKind("FlinkDeployment")
            .withPlural("flinkdeployments")
            .withNamespaced(true)
            .build();

    private final KubernetesClient client;
    private final String namespace;
    private final String operatorNamespace;
    private final Function<String, URI> restAt;
    /** The FlinkDeployment this reads: {@value #NAME}, or another ({@link #deployment}). */
    private final String name;

    /** The cluster of {@code KUBECONFIG}, as kubectl's. */
    static FlinkCluster ofKubeconfig(String namespace, String operatorNamespace) {
        return new FlinkCluster(
                OperatorClient.create(asKubectl(Config.autoConfigure(null))), namespace, operatorNamespace);
    }

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

    FlinkCluster(KubernetesClient client, String namespace, String operatorNamespace) {
        this(client, namespace, operatorNamespace, ip -> URI.create("http://" + ip + ":" + REST_PORT));
    }

    /**
     * With {@code restAt} giving the REST API's base address of the JobManager at a pod IP: tests
     * answer on loopback what a pod would on its IP.
     */
    FlinkCluster(KubernetesClient client, String namespace, String operatorNamespace, Function<String, URI> restAt) {
        this(client, namespace, operatorNamespace, restAt, NAME);
    }

    private FlinkCluster(
            KubernetesClient client,
            String namespace,
            String operatorNamespace,
            Function<String, URI> restAt,
            String name) {
        this.client = client;
        this.namespace = namespace;
        this.operatorNamespace = operatorNamespace;
        this.restAt = restAt;
        this.name = name;
    }

    /** The same reads of another FlinkDeployment of the namespace (the drill's incident runs one). */
    FlinkCluster deployment(String other) {
        return new FlinkCluster(client, namespace, operatorNamespace, restAt, other);
    }

    /** The labels native Kubernetes gives the deployment's pods of {@code component} (jobmanager, taskmanager). */
    Map<String, String> podsOf(String component) {
        return Map.of("app", name, "component", component);
    }

    KubernetesClient client() {
        return client;
    }

    /** The FlinkDeployment's status; empty while it cannot be read or has none. */
    Optional<FlinkDeploymentStatus> status() {
        return read(() -> client.resources(FlinkDeployment.class)
                        .inNamespace(namespace)
                        .withName(name)
                        .get())
                .map(FlinkDeployment::getStatus);
    }

    /** The operator's view of the job, {@code status.jobStatus.state}; "UNKNOWN" when there is none. */
    String jobState() {
        return jobStatus(s -> s.getState() == null ? null : s.getState().name()).orElse("UNKNOWN");
    }

    /** The job's id as the operator reports it; "" when there is none. */
    String jobId() {
        return jobStatus(JobStatus::getJobId).orElse("");
    }

    /** Where the operator's last savepoint upgrade restored from: either field it may record it in; "" for none. */
    String upgradeSavepoint() {
        return jobStatus(s -> {
                    String last =
                            s.getSavepointInfo() == null || s.getSavepointInfo().getLastSavepoint() == null
                                    ? null
                                    : s.getSavepointInfo().getLastSavepoint().getLocation();
                    return last != null && !last.isEmpty() ? last : s.getUpgradeSavepointPath();
                })
                .orElse("");
    }

    /**
     * The lifecycle state the operator wrote ({@code status.lifecycleState}), read as it is: the
     * 1.10 API's own getter derives it again from the reconciled spec, which it cannot read once
     * that names {@code flinkVersion: v2_2}. Empty when there is none, or for a state the 1.10 API
     * lacks (operator 1.15's {@code DELETING}, {@code DELETED}).
     */
    Optional<ResourceLifecycleState> lifecycle() {
        return read(() -> client.genericKubernetesResources(FLINK_DEPLOYMENTS)
                        .inNamespace(namespace)
                        .withName(name)
                        .get())
                .map(d -> d.getAdditionalProperties().get("status"))
                .filter(Map.class::isInstance)
                .map(status -> ((Map<?, ?>) status).get("lifecycleState"))
                .flatMap(state -> Arrays.stream(ResourceLifecycleState.values())
                        .filter(known -> known.name().equals(state))
                        .findFirst());
    }

    /** The spec the operator last reconciled; empty before the first. */
    Optional<FlinkDeploymentSpec> reconciledSpec() {
        // Read with the client's serialization, not the operator API's own reader, which fails on
        // a flinkVersion the 1.10 API does not know (v2_2).
        return status().flatMap(s -> Optional.ofNullable(s.getReconciliationStatus()))
                .map(r -> r.getLastReconciledSpec())
                .map(json -> client.getKubernetesSerialization().unmarshal(json, JsonNode.class))
                .map(reconciled -> reconciled.get("spec"))
                .map(spec -> client.getKubernetesSerialization().convertValue(spec, FlinkDeploymentSpec.class));
    }

    /**
     * The deployment's {@code spec.flinkVersion} as written ({@code v1_20}, {@code v2_2}): read
     * as it is, since the 1.10 API's enum ends at {@code v1_20}. Empty while it cannot be read.
     */
    Optional<String> flinkVersion() {
        return spec().map(spec -> spec.get("flinkVersion")).map(String::valueOf);
    }

    /** The FlinkDeployment's {@code spec} as written, read as a plain object; empty while it cannot be read. */
    private Optional<Map<?, ?>> spec() {
        return read(() -> client.genericKubernetesResources(FLINK_DEPLOYMENTS)
                        .inNamespace(namespace)
                        .withName(name)
                        .get())
                .map(d -> d.getAdditionalProperties().get("spec"))
                .filter(Map.class::isInstance)
                .map(Map.class::cast);
    }

    /**
     * The job's checkpoint timeout as its FlinkDeployment sets it ({@code flinkConfiguration}'s
     * flat keys), else Flink's default.
     *
     * @throws IllegalStateException when the FlinkDeployment cannot be read
     */
    Duration checkpointTimeout() {
        Map<?, ?> spec = spec().orElseThrow(() -> new IllegalStateException(
                "the FlinkDeployment " + name + " in " + namespace + " could not be read for its checkpoint timeout"));
        Map<String, String> flat = new TreeMap<>();
        if (spec.get("flinkConfiguration") instanceof Map<?, ?> entries) {
            entries.forEach((k, v) -> flat.put(String.valueOf(k), String.valueOf(v)));
        }
        return Configuration.fromMap(flat).get(CheckpointingOptions.CHECKPOINTING_TIMEOUT);
    }

    /**
     * The in-cluster reconciler's settings as it reads them at start: the env of its Deployment
     * {@value #RECONCILER}'s container, those given a value (one from a Secret or a field is no
     * setting the drill times by).
     *
     * @throws IllegalStateException when the Deployment cannot be read
     */
    Configuration reconcilerSettings() {
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

    /** Sets {@code spec.job.state}, and nothing else, as {@code kubectl patch --type merge} would. */
    void setJobState(JobState state) {
        client.resources(FlinkDeployment.class)
                .inNamespace(namespace)
                .withName(name)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        client.getKubernetesSerialization()
                                .asJson(Map.of("spec", Map.of("job", Map.of("state", state)))));
    }

    /** The pods with {@code labels}; empty while they cannot be listed. */
    Optional<List<Pod>> pods(Map<String, String> labels) {
        return pods(namespace, labels);
    }

    private Optional<List<Pod>> pods(String namespace, Map<String, String> labels) {
        return read(() ->
                client.pods().inNamespace(namespace).withLabels(labels).list().getItems());
    }

    /** The uids of the pods with {@code labels}, space-separated: a replaced pod changes it. */
    String podUids(Map<String, String> labels) {
        return pods(labels).orElse(List.of()).stream()
                .map(p -> p.getMetadata().getUid())
                .collect(Collectors.joining(" "));
    }

    /** The images of the first container of each pod with {@code labels}, space-separated. */
    String images(Map<String, String> labels) {
        return pods(labels).orElse(List.of()).stream()
                .map(p -> p.getSpec().getContainers().get(0).getImage())
                .collect(Collectors.joining(" "));
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

    /** Checkpoints the job has completed, as its leading JobManager says; empty without an answer. */
    Optional<Long> completedCheckpoints() {
        String job = jobId();
        if (job.isEmpty()) {
            return Optional.empty();
        }
        return fromLeader(base -> rest.checkpoints(base, job).counts().completed());
    }

    /**
     * Since when the job runs, as its leading JobManager's REST API says ({@code timestamps.RUNNING}
     * of {@code /jobs/<id>}, which a restart or a new leader's recovery sets anew); empty while
     * there is no leader, no job or no answer. Not the operator's view, which lags by its
     * observer's cadence.
     */
    Optional<Long> runningSince() {
        String job = jobId();
        if (job.isEmpty()) {
            return Optional.empty();
        }
        return fromLeader(base -> rest.job(base, job).runningSince()).filter(since -> since > 0);
    }

    /**
     * The partitions of {@code topic} that the job's Kafka source readers have been given, as the
     * leading JobManager's REST API lists their metrics (a reader registers a partition's metrics
     * in the same step in which it seeks to the partition's starting offset); empty while there is
     * no leader, no job or no answer.
     */
    Optional<Set<Integer>> readerPartitions(String topic) {
        String job = jobId();
        if (job.isEmpty()) {
            return Optional.empty();
        }
        return fromLeader(base -> {
            Set<Integer> partitions = new TreeSet<>();
            for (JobDetails.Vertex v : rest.job(base, job).vertices()) {
                rest.readerPartitions(base, job, v.id()).stream()
                        .filter(r -> r.topic().equals(ReaderPartition.listedName(topic)))
                        .forEach(r -> partitions.add(r.partition()));
            }
            return partitions;
        });
    }

    /**
     * The names of the TaskManager pods that run tasks, as the leading JobManager's REST API lists
     * them (under native Kubernetes a TaskManager's id is its pod's name); empty while there is no
     * leader or no answer. A spare TaskManager (slotmanager.redundant-taskmanager-num) is not one.
     */
    List<String> busyTaskManagers() {
        return fromLeader(base -> rest.taskManagers(base).stream()
                        .filter(TaskManager::busy)
                        .map(TaskManager::id)
                        .toList())
                .orElse(List.of());
    }

    /** A call to the leading JobManager's REST API; empty while there is no leader or no answer. */
    private <T> Optional<T> fromLeader(RestCall<T> call) {
        Optional<String> ip = leader().map(p -> p.getStatus().getPodIP());
        if (ip.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(call.at(restAt.apply(ip.get()).toString()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private interface RestCall<T> {
        T at(String base) throws IOException;
    }

    /** The JobManager pods that are not being deleted. */
    List<Pod> jobManagers() {
        return pods(podsOf("jobmanager")).orElse(List.of()).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
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

    /** The images of the operator's pods that are not being deleted, space-separated. */
    String operatorImages() {
        return pods(operatorNamespace, OPERATOR).orElse(List.of()).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .map(p -> p.getSpec().getContainers().get(0).getImage())
                .collect(Collectors.joining(" "));
    }

    /** Whether an operator pod that is not being deleted is Ready: the new one after a restart. */
    boolean operatorReady() {
        return pods(operatorNamespace, OPERATOR).orElse(List.of()).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .anyMatch(FlinkCluster::ready);
    }

    /** {@code labels} as a label selector for kubectl's {@code -l}. */
    static String selector(Map<String, String> labels) {
        return new TreeMap<>(labels)
                .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }

    private static boolean ready(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
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

    private Optional<JobStatus> jobStatus() {
        return status().map(FlinkDeploymentStatus::getJobStatus);
    }

    private <T> Optional<T> jobStatus(Function<JobStatus, T> field) {
        return jobStatus().map(field).filter(Objects::nonNull);
    }

    private static <T> Optional<T> read(Supplier<T> get) {
        try {
            return Optional.ofNullable(get.get());
        } catch (KubernetesClientException e) {
            return Optional.empty();
        }
    }
}
