package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.observe.OperatorClient;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The drill reads the operator's status with the operator API 1.10.0 classes and fabric8's
 * default serialization; operator 1.15 writes more (our minimal fixture,
 * {@code operator-1.15/flinkdeployment-status-minimal.json}). The upgrade scenarios wait on
 * {@link DeploymentResource#reconciledSpec()} and {@link DeploymentResource#lifecycle()}: both must
 * read it.
 */
@EnableKubernetesMockClient(crud = true)
class NewerOperatorStatusTest {
    KubernetesClient client;

    @Test
    void readsTheStatusAsOperator115WritesIt() throws IOException {
        store("STABLE");
        // lastReconciledSpec as 1.15 serialises it, with job.autoscalerResetNonce.
        DeploymentResourceTest.assertRunsAsDeployed(new DeploymentResource(client, "lineflow", FlinkCluster.NAME));
    }

    @Test
    void aLifecycleStateThe110ApiLacksReadsAsUnknownNotAsAnError() throws IOException {
        // 1.15 writes DELETING while it tears the deployment down (the undeploy step).
        store("DELETING");
        DeploymentResource deployment = new DeploymentResource(client, "lineflow", FlinkCluster.NAME);

        assertThat(deployment.lifecycle()).isEmpty();
        assertThat(deployment.jobState()).isEmpty();
        assertThat(deployment.flinkVersion()).contains("v1_20");
    }

    /**
     * After the major upgrade the spec and the reconciled spec say {@code flinkVersion: v2_2},
     * which the 1.10 API's enum lacks: read through the reconciler's client (as the drill's
     * cluster client is made), the spec is read with that field null, and nothing fails.
     */
    @Test
    void aDeploymentOnFlink22IsReadThroughTheReconcilersClient() throws IOException {
        store("STABLE", "v2_2");
        DeploymentResource deployment =
                new DeploymentResource(OperatorClient.create(client.getConfiguration()), "lineflow", FlinkCluster.NAME);

        assertThat(deployment.lifecycle()).contains(ResourceLifecycleState.STABLE);
        assertThat(deployment.jobState()).contains(JobStatus.RUNNING);
        assertThat(deployment.reconciledSpec()).hasValueSatisfying(s -> {
            assertThat(s.getImage()).isEqualTo("lineflow-job:e2e");
            assertThat(s.getFlinkVersion()).isNull();
            assertThat(s.getJob().getParallelism()).isEqualTo(2);
        });
        assertThat(deployment.flinkVersion()).contains("v2_2");
    }

    /** The negative control: with fabric8's default serialization that deployment cannot be read at all. */
    @Test
    void withoutTheReconcilersClientAFlink22DeploymentCannotBeRead() throws IOException {
        store("STABLE", "v2_2");
        DeploymentResource deployment = new DeploymentResource(client, "lineflow", FlinkCluster.NAME);

        // The whole object fails to read: the job's state is unknown, and an upgrade's wait for
        // RUNNING would never end.
        assertThat(deployment.jobState()).isEmpty();
        assertThat(deployment.status()).isEmpty();
    }

    private void store(String lifecycle) throws IOException {
        store(lifecycle, "v1_20");
    }

    private void store(String lifecycle, String flinkVersion) throws IOException {
        String json;
        try (InputStream in = getClass().getResourceAsStream("/operator-1.15/flinkdeployment-status-minimal.json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("LIFECYCLE", lifecycle)
                    .replace("v1_20", flinkVersion);
        }
        GenericKubernetesResource raw =
                client.getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class);
        client.genericKubernetesResources(new ResourceDefinitionContext.Builder()
                        .withGroup("flink.apache.org")
                        .withVersion("v1beta1")
                        .withKind("FlinkDeployment")
                        .withPlural("flinkdeployments")
                        .withNamespaced(true)
                        .build())
                .inNamespace("lineflow")
                .resource(raw)
                .create();
    }
}
