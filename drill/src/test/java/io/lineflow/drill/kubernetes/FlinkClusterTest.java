package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.status.Savepoint;
import org.apache.flink.kubernetes.operator.api.status.SavepointInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

/** What the Kubernetes drill reads of the cluster, read from fabric8's mock API server. */
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
    void theJobAsTheOperatorReportsIt() {
        assertThat(flink.jobState()).isEqualTo("RUNNING");
        assertThat(flink.jobId()).isEqualTo("job-1");
        assertThat(flink.lifecycle()).contains(ResourceLifecycleState.STABLE);
        assertThat(flink.reconciledSpec())
                .hasValueSatisfying(s -> assertThat(s.getImage()).isEqualTo("lineflow-job:e2e"));
    }

    @Test
    void aDeploymentThatIsGoneReadsAsUnknownNotAsAnError() {
        client.resources(FlinkDeployment.class).inNamespace(NS).delete();
        assertThat(flink.jobState()).isEqualTo("UNKNOWN");
        assertThat(flink.jobId()).isEmpty();
        assertThat(flink.lifecycle()).isEmpty();
        assertThat(flink.reconciledSpec()).isEmpty();
    }

    @Test
    void settingTheJobStateChangesNothingElseOfTheSpec() {
        FlinkDeployment before = operator.deployment();
        flink.setJobState(JobState.SUSPENDED);
        FlinkDeployment after = operator.deployment();
        assertThat(after.getSpec().getJob().getState()).isEqualTo(JobState.SUSPENDED);
        after.getSpec().getJob().setState(JobState.RUNNING);
        assertThat(after.getSpec()).isEqualTo(before.getSpec());
    }

    @Test
    void podsByLabelTheirUidsImagesAndNames() {
        assertThat(flink.podName(FlinkCluster.JM)).isEqualTo("lineflow-jobmanager-1");
        assertThat(flink.podUids(FlinkCluster.JM))
                .isEqualTo(client.pods()
                        .inNamespace(NS)
                        .withName("lineflow-jobmanager-1")
                        .get()
                        .getMetadata()
                        .getUid());
        assertThat(flink.images(FlinkCluster.TM)).isEqualTo("lineflow-job:e2e");
        assertThat(flink.pods(Map.of("app", FlinkCluster.NAME)))
                .hasValueSatisfying(p -> assertThat(p).hasSize(2));
        client.pods().inNamespace(NS).delete();
        assertThat(flink.pods(Map.of("app", FlinkCluster.NAME)))
                .hasValueSatisfying(p -> assertThat(p).isEmpty());
        assertThatThrownBy(() -> flink.podName(FlinkCluster.JM))
                .hasMessage("no pod app=lineflow,component=jobmanager in lineflow");
    }

    @Test
    void theOperatorIsReadyOnceAPodNotBeingDeletedIsReady() {
        assertThat(flink.operatorReady()).isFalse();
        client.resource(FakeOperator.pod("operator", "operator-1", FlinkCluster.OPERATOR, "operator", false))
                .create();
        assertThat(flink.operatorReady()).isFalse();
        client.resource(FakeOperator.pod("operator", "operator-2", FlinkCluster.OPERATOR, "operator", true))
                .create();
        assertThat(flink.operatorReady()).isTrue();
    }

    @Test
    void theSavepointOfAnUpgradeFromEitherFieldTheOperatorRecordsItIn() {
        assertThat(flink.upgradeSavepoint()).isEmpty();
        FlinkDeployment fd = operator.deployment();
        fd.getStatus().getJobStatus().setUpgradeSavepointPath("s3://upgrade");
        client.resource(fd).updateStatus();
        assertThat(flink.upgradeSavepoint()).isEqualTo("s3://upgrade");
        fd = operator.deployment();
        Savepoint last = new Savepoint();
        last.setLocation("s3://last");
        SavepointInfo info = new SavepointInfo();
        info.setLastSavepoint(last);
        fd.getStatus().getJobStatus().setSavepointInfo(info);
        client.resource(fd).updateStatus();
        assertThat(flink.upgradeSavepoint()).isEqualTo("s3://last");
    }

    @Test
    void whatTheReconcilerReports() {
        assertThat(flink.eventReported("CHECKPOINTING_DISABLED")).isFalse();
        assertThat(flink.healthStatus()).isEmpty();
        client.resource(new EventBuilder()
                        .withNewMetadata()
                        .withName("lineflow.1")
                        .withNamespace(NS)
                        .endMetadata()
                        .withReason("CHECKPOINTING_DISABLED")
                        .withNewInvolvedObject()
                        .withKind("FlinkDeployment")
                        .withName("other")
                        .endInvolvedObject()
                        .build())
                .create();
        assertThat(flink.eventReported("CHECKPOINTING_DISABLED"))
                .as("on another deployment")
                .isFalse();
        client.resource(new EventBuilder()
                        .withNewMetadata()
                        .withName("lineflow.2")
                        .withNamespace(NS)
                        .endMetadata()
                        .withReason("CHECKPOINTING_DISABLED")
                        .withNewInvolvedObject()
                        .withKind("FlinkDeployment")
                        .withName(FlinkCluster.NAME)
                        .endInvolvedObject()
                        .build())
                .create();
        assertThat(flink.eventReported("CHECKPOINTING_DISABLED")).isTrue();
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(FlinkCluster.HEALTH)
                        .withNamespace(NS)
                        .addToAnnotations(FlinkCluster.STATUS_ANNOTATION, "HEALTHY")
                        .endMetadata()
                        .addToData("summary.json", "{\"findings\":[\"CHECKPOINTING_DISABLED\"]}")
                        .build())
                .create();
        assertThat(flink.healthStatus()).isEqualTo("HEALTHY");
        assertThat(flink.health())
                .hasValueSatisfying(c -> assertThat(String.valueOf(c.getData())).contains("CHECKPOINTING_DISABLED"));
    }

    @Test
    void aClusterThatDoesNotAnswerReadsAsUnknownAtOnce() {
        long began = System.currentTimeMillis();
        try (KubernetesClient unreachable = new KubernetesClientBuilder()
                .withConfig(FlinkCluster.asKubectl(Config.fromKubeconfig(String.join(
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
            assertThat(down.jobState()).isEqualTo("UNKNOWN");
            assertThat(down.pods(FlinkCluster.JM)).isEmpty();
            assertThat(down.operatorReady()).isFalse();
            assertThat(down.healthStatus()).isEmpty();
        }
        assertThat(System.currentTimeMillis() - began)
                .as("no retries with backoff")
                .isLessThan(5_000);
    }
}
