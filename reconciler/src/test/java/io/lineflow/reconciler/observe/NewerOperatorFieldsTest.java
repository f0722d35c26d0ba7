package io.lineflow.reconciler.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.reconciler.model.KubernetesStatus;
import io.lineflow.reconciler.model.SpecObservation;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reconciler reads FlinkDeployments with the operator API 1.10.0 classes; operator 1.15 writes
 * fields and values those classes lack. A FlinkDeployment the reconciler cannot read fails the
 * informer's list of every deployment, so it goes blind. The fixture is our own minimal object
 * with each 1.15-only field ({@code operator-1.15/flinkdeployment-minimal.yaml}); it is stored in
 * fabric8's mock API server as a generic resource (the 1.10 classes could not even write it) and
 * read back by the client {@link OperatorClient#create} builds, as the controller's informers do.
 */
@EnableKubernetesMockClient(crud = true)
class NewerOperatorFieldsTest {
    static final String FIXTURE = "/operator-1.15/flinkdeployment-minimal.yaml";

    KubernetesClient client;

    @Test
    void informerOfTheReconcilersClientReadsADeploymentAsOperator115WritesIt() throws Exception {
        store(FIXTURE);
        try (KubernetesClient reconcilers = OperatorClient.create(client.getConfiguration());
                SharedIndexInformer<FlinkDeployment> informer = reconcilers
                        .resources(FlinkDeployment.class)
                        .inNamespace("lineflow")
                        .inform()) {
            informer.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
            List<FlinkDeployment> seen = informer.getStore().list();

            assertThat(seen).hasSize(1);
            FlinkDeployment fd = seen.get(0);
            assertThat(fd.getSpec().getJob().getUpgradeMode()).isEqualTo(UpgradeMode.LAST_STATE);
            assertThat(fd.getStatus().getJobStatus().getState()).isEqualTo(JobStatus.RUNNING);
            assertThat(fd.getStatus().getJobManagerDeploymentStatus()).isEqualTo(JobManagerDeploymentStatus.READY);
            // DELETING is not a 1.10 lifecycle state: read as unknown (the 1.10 getter then derives
            // one from the rest of the status), not a failure.
            assertThat(fd.getStatus().getLifecycleState()).isNotEqualTo(null);
            assertThat(SpecReader.spec(fd).flinkConfiguration())
                    .containsEntry("state.checkpoints.dir", "s3://lineflow/checkpoints");
        }
    }

    @Test
    void nestedAndTypedFlinkConfigurationReadsAsFlatStrings() {
        FlinkDeployment fd = OperatorClient.serialization().unmarshal(fixture(FIXTURE), FlinkDeployment.class);

        SpecObservation spec = SpecReader.spec(fd);

        // The checks look keys up flat, as Flink does (1.15's CRD takes nested YAML and numbers).
        assertThat(spec.flinkConfiguration())
                .containsEntry("state.checkpoints.dir", "s3://lineflow/checkpoints")
                .containsEntry("taskmanager.numberOfTaskSlots", "2")
                .containsEntry("pipeline.object-reuse", "true")
                .containsEntry("high-availability.type", "kubernetes")
                .containsEntry("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
                .doesNotContainKey("state");
    }

    /**
     * A deployment on Flink 2.2, as operator 1.15 reports it after the major upgrade: the spec and
     * the last reconciled spec name {@code flinkVersion: v2_2}, which the 1.10 API lacks. The
     * reconciler reads its status (the lifecycle state as not reported) instead of failing on it,
     * which it did in the e2e drill's first major upgrade ("Could not deserialize spec").
     */
    @Test
    void theStatusOfADeploymentOnFlink22IsReadWithItsLifecycleNotReported() {
        String onFlink22 = fixture(FIXTURE)
                .replace("flinkVersion: v1_20", "flinkVersion: v2_2")
                .replace(
                        "\n  observedGeneration: 1\n",
                        "\n  observedGeneration: 1\n  reconciliationStatus:\n    state: DEPLOYED\n"
                                + "    lastReconciledSpec: '{\"spec\":{\"flinkVersion\":\"v2_2\",\"image\":\"lineflow-job:2.2\"},"
                                + "\"resource_metadata\":{\"apiVersion\":\"flink.apache.org/v1beta1\",\"firstDeployment\":false}}'\n");
        FlinkDeployment fd = OperatorClient.serialization().unmarshal(onFlink22, FlinkDeployment.class);

        assertThat(fd.getSpec().getFlinkVersion()).isNull();
        // The negative control: the 1.10 API's own getter derives the state from that spec, and fails.
        assertThatThrownBy(() -> fd.getStatus().getLifecycleState()).hasStackTraceContaining("v2_2");
        KubernetesStatus status = SpecReader.status(fd);
        assertThat(status.lifecycleState()).isNull();
        assertThat(status.jobState()).isEqualTo(JobStatus.RUNNING);
        assertThat(status.jobManagerDeploymentStatus()).isEqualTo(JobManagerDeploymentStatus.READY);
    }

    @Test
    void fabric8sDefaultSerializationCannotReadTheFixture() {
        // The negative control: what the reconciler's informer met without OperatorClient's rules.
        assertThatThrownBy(() -> new KubernetesSerialization().unmarshal(fixture(FIXTURE), FlinkDeployment.class))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private void store(String resource) {
        GenericKubernetesResource raw =
                client.getKubernetesSerialization().unmarshal(fixture(resource), GenericKubernetesResource.class);
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

    static String fixture(String resource) {
        try (InputStream in = NewerOperatorFieldsTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
