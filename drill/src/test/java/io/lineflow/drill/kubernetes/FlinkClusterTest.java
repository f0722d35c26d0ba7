package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reads of one deployment's cluster together, from fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class FlinkClusterTest {
    private static final String NS = "lineflow";

    KubernetesClient client;

    private FakeOperator operator;
    private FlinkCluster flink;

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
        flink = new FlinkCluster(client, NS, "operator");
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    @Test
    void anotherDeploymentIsReadByItsOwnNameEventsSummaryAndPods() {
        FlinkCluster other = flink.named("incident-beam");
        operator.event("incident-beam.1", "RemediationRestartedTaskManagers", "incident-beam");
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("incident-beam-lineflow-health")
                        .withNamespace(NS)
                        .addToAnnotations(ReconcilerOutputs.STATUS_ANNOTATION, "CRITICAL")
                        .endMetadata()
                        .build())
                .create();
        assertThat(other.reconciler().eventReported("RemediationRestartedTaskManagers"))
                .isTrue();
        assertThat(flink.reconciler().eventReported("RemediationRestartedTaskManagers"))
                .isFalse();
        assertThat(other.reconciler().healthStatus()).isEqualTo("CRITICAL");
        assertThat(flink.reconciler().healthStatus()).isNotEqualTo("CRITICAL");
        assertThat(other.pods().labelsOf("taskmanager")).containsEntry("app", "incident-beam");
        assertThat(flink.pods().labelsOf("jobmanager")).isEqualTo(ClusterPods.JM);
        assertThat(other.deployment().jobState()).isEmpty();
    }

    @Test
    void aClusterThatDoesNotAnswerReadsAsUnknownAtOnce() {
        long began = System.currentTimeMillis();
        try (KubernetesClient unreachable = new KubernetesClientBuilder()
                .withConfig(ApiServer.asKubectl(Config.fromKubeconfig(String.join(
                        "\n",
                        "apiVersion: v1",
                        "kind: Config",
                        "clusters:",
                        "- name: c",
                        "  cluster: {server: \"http://127.0.0.1:1\"}",
                        "users:",
                        "- name: u",
                        "  user: {token: t}",
                        "contexts:",
                        "- name: x",
                        "  context: {cluster: c, user: u, namespace: lineflow}",
                        "current-context: x",
                        ""))))
                .build()) {
            // The kubeconfig is parsed on the drill's classpath (Flink's snakeyaml-engine, not fabric8's own).
            assertThat(unreachable.getConfiguration().getMasterUrl()).startsWith("http://127.0.0.1:1");
            assertThat(unreachable.getConfiguration().getRequestRetryBackoffLimit())
                    .as("tried once, as kubectl")
                    .isZero();
            assertThat(unreachable.getConfiguration().getRequestTimeout()).isEqualTo(30_000);
            FlinkCluster down = new FlinkCluster(unreachable, NS, "operator");
            assertThat(down.deployment().jobState()).isEmpty();
            assertThat(down.pods().withLabels(ClusterPods.JM)).isEmpty();
            assertThat(down.operator().ready()).isFalse();
            assertThat(down.reconciler().healthStatus()).isEmpty();
        }
        assertThat(System.currentTimeMillis() - began)
                .as("no retries with backoff")
                .isLessThan(5_000);
    }
}
