package io.lineflow.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.testing.Commands;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The Flink ServiceAccount with the RBAC of manifests/rbac, applied for real: Kubernetes HA's
 * ConfigMap work (leader election locks, job metadata, watches, cleanup by label) and native
 * TaskManager pods are allowed in its namespace; nothing else, nowhere else, nothing cluster-wide.
 */
@ExtendWith(KubeApiServerExtension.class)
class FlinkRbacTest {

    static final String SA = "lineflow-flink";
    /** Labels Flink's Kubernetes HA puts on its ConfigMaps (cleanup deletes by these). */
    static final Map<String, String> HA_LABELS =
            Map.of("app", "lineflow", "configmap-type", "high-availability", "type", "flink-native-kubernetes");

    static KubeEnv env;
    static KubernetesClient admin;
    static String ns;
    static String other;
    static KubernetesClient flink;

    @BeforeAll
    static void setUp(KubeEnv kube) {
        env = kube;
        admin = kube.admin();
        ns = env.newNamespace("lf-flink");
        other = env.newNamespace("lf-other");
        env.apply(ns, Repo.kustomize(Repo.ROOT.resolve("manifests/rbac")));
        flink = env.clientFor(ns, SA);
    }

    static ConfigMap haConfigMap(String name) {
        return new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(HA_LABELS)
                .endMetadata()
                .build();
    }

    static void assertForbidden(String what, Runnable call) {
        assertThatThrownBy(call::run)
                .as(what)
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).as(what).isEqualTo(403));
    }

    @Test
    void kubernetesHaCanElectALeaderAndKeepJobMetadataInConfigMaps() throws Exception {
        var cms = flink.configMaps().inNamespace(ns);
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        // TaskManagers and the standby JobManager watch the leader ConfigMap.
        try (Watch w = cms.withLabels(HA_LABELS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, ConfigMap cm) {
                seen.add(action + " " + cm.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {}
        })) {
            // The leader election lock: create, read, then renew by update (optimistic, with resourceVersion).
            cms.resource(haConfigMap("lineflow-cluster-config-map")).create();
            ConfigMap lock = cms.withName("lineflow-cluster-config-map").get();
            lock.getMetadata()
                    .setAnnotations(
                            Map.of("control-plane.alpha.kubernetes.io/leader", "{\"holderIdentity\":\"jm-1\"}"));
            cms.resource(lock).update();
            // Job metadata: checkpoint ids and the leader's address, by patch.
            cms.withName("lineflow-cluster-config-map")
                    .edit(c -> new ConfigMapBuilder(c)
                            .addToData("checkpointID-0000000000000000042", "pointer")
                            .build());
            cms.resource(haConfigMap("lineflow-abc-config-map")).create();

            assertThat(cms.withLabels(HA_LABELS).list().getItems()).hasSize(2);
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("ADDED lineflow-cluster-config-map");
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("MODIFIED lineflow-cluster-config-map");
            assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("MODIFIED lineflow-cluster-config-map");

            // Cleanup of a finished or removed cluster: by name and by label.
            cms.withName("lineflow-abc-config-map").delete();
            cms.withLabels(HA_LABELS).delete();
            assertThat(admin.configMaps()
                            .inNamespace(ns)
                            .withLabels(HA_LABELS)
                            .list()
                            .getItems())
                    .isEmpty();
        }
    }

    @Test
    void theJobManagerCanRunItsTaskManagerPods() {
        var pods = flink.pods().inNamespace(ns);
        pods.resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("lineflow-taskmanager-1-1")
                        .addToLabels("app", "lineflow")
                        .addToLabels("component", "taskmanager")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("flink-main-container")
                        .withImage("lineflow/job:test")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        assertThat(pods.withLabel("component", "taskmanager").list().getItems()).hasSize(1);
        try (Watch w = pods.watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, io.fabric8.kubernetes.api.model.Pod resource) {}

            @Override
            public void onClose(WatcherException cause) {}
        })) {
            assertThat(w).isNotNull();
        }
        pods.withName("lineflow-taskmanager-1-1").delete();
        // Owner reference target: the JobManager Deployment is read, not changed.
        assertThat(flink.apps().deployments().inNamespace(ns).list().getItems()).isEmpty();
    }

    @Test
    void itIsRefusedEverythingElse() {
        admin.configMaps()
                .inNamespace(other)
                .resource(haConfigMap("lineflow-cluster-config-map"))
                .create();

        assertForbidden(
                "ConfigMaps of another namespace",
                () -> flink.configMaps()
                        .inNamespace(other)
                        .withName("lineflow-cluster-config-map")
                        .get());
        assertForbidden(
                "writing ConfigMaps of another namespace",
                () -> flink.configMaps()
                        .inNamespace(other)
                        .resource(haConfigMap("x"))
                        .create());
        assertForbidden(
                "ConfigMaps cluster-wide",
                () -> flink.configMaps().inAnyNamespace().list());
        assertForbidden("Secrets", () -> flink.secrets().inNamespace(ns).list());
        assertForbidden("Services", () -> flink.services().inNamespace(ns).list());
        assertForbidden(
                "creating Deployments",
                () -> flink.apps()
                        .deployments()
                        .inNamespace(ns)
                        .resource(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                                .withNewMetadata()
                                .withName("x")
                                .endMetadata()
                                .build())
                        .create());
        // Flink 1.20's leader election locks ConfigMaps; the Role grants no Leases, and none are needed.
        assertForbidden(
                "Leases",
                () -> flink.leases()
                        .inNamespace(ns)
                        .resource(new LeaseBuilder()
                                .withNewMetadata()
                                .withName("lineflow")
                                .endMetadata()
                                .build())
                        .create());
        assertForbidden("RBAC", () -> flink.rbac().roles().inNamespace(ns).list());
        assertForbidden("namespaces", () -> flink.namespaces().list());
        assertForbidden("nodes", () -> flink.nodes().list());
        assertForbidden(
                "pods of another namespace",
                () -> flink.pods().inNamespace(other).list());
    }

    @Test
    void aKubeconfigOfTheFlinkAccountServesProcessesOutsideTheTests() {
        String kubeconfig = env.kubeconfigFor(ns, SA).toString();
        String cache = Repo.TARGET.resolve("kubectl-cache").toString();

        Commands.Result cms = Repo.exec(
                null,
                List.of(
                        Repo.KUBECTL.toString(),
                        "--kubeconfig",
                        kubeconfig,
                        "--cache-dir",
                        cache,
                        "get",
                        "configmaps",
                        "-o",
                        "name"));
        Commands.Result secrets = Repo.exec(
                null,
                List.of(Repo.KUBECTL.toString(), "--kubeconfig", kubeconfig, "--cache-dir", cache, "get", "secrets"));

        assertThat(cms.ok()).as(cms.err()).isTrue();
        assertThat(secrets.ok()).isFalse();
        assertThat(secrets.err())
                .contains("system:serviceaccount:" + ns + ":" + SA)
                .contains("forbidden");
    }

    @Test
    void theManifestsBindNothingClusterWide() {
        List<String> kinds = Manifests.parse(Repo.kustomize(Repo.ROOT.resolve("manifests/rbac"))).stream()
                .map(o -> o.path("kind").asText())
                .toList();
        assertThat(kinds).containsExactlyInAnyOrder("ServiceAccount", "Role", "RoleBinding");
        assertThat(admin.rbac().clusterRoleBindings().list().getItems())
                .noneMatch(b -> b.getSubjects() != null
                        && b.getSubjects().stream()
                                .anyMatch(s -> SA.equals(s.getName()) && ns.equals(s.getNamespace())));
    }
}
