package io.lineflow.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;
import org.apache.flink.kubernetes.operator.api.status.TaskManagerInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The API server keeps {@code ""}, {@code 0} and {@code false} in a custom resource's typed fields.
 *
 * <p>Kubernetes 1.20 built with Go 1.16 or newer took them for null and refused them (kubernetes#99804;
 * scripts/k8s-test-env.sh backports the fix, kube-openapi#230). The real operator's first status
 * update carries {@code taskManager: {labelSelector: "", replicas: 0}}: refused, the deployment
 * went FAILED. Against a server without the fix, both tests fail with HTTP 422 "must be of type".
 */
@ExtendWith(KubeApiServerExtension.class)
class CustomResourceZeroValueTest {

    static KubernetesClient admin;
    static String ns;

    @BeforeAll
    static void setUp(KubeEnv kube) {
        admin = kube.admin();
        ns = kube.newNamespace("lf-zero");
    }

    @Test
    void aFlinkDeploymentWithEmptyZeroAndFalseInTypedFieldsIsStoredAsSent() {
        FlinkDeployment fd = Fakes.flinkDeployment(ns, "zero-spec");
        fd.getSpec().setImage("");
        fd.getSpec().getJob().setParallelism(0);
        fd.getSpec().getJob().setAllowNonRestoredState(false);
        fd.getSpec().getTaskManager().getResource().setCpu(0.0);

        admin.resource(fd).create();

        FlinkDeployment stored = admin.resources(FlinkDeployment.class)
                .inNamespace(ns)
                .withName("zero-spec")
                .get();
        assertThat(stored.getSpec().getImage()).isEmpty();
        assertThat(stored.getSpec().getJob().getParallelism()).isZero();
        assertThat(stored.getSpec().getJob().getAllowNonRestoredState()).isFalse();
        assertThat(stored.getSpec().getTaskManager().getResource().getCpu()).isZero();
    }

    @Test
    void theOperatorsFirstStatusUpdateWithAnEmptyLabelSelectorIsAccepted() {
        FlinkDeployment created =
                admin.resource(Fakes.flinkDeployment(ns, "zero-status")).create();
        FlinkDeploymentStatus status = new FlinkDeploymentStatus();
        status.setTaskManager(new TaskManagerInfo("", 0));
        created.setStatus(status);

        admin.resource(created).updateStatus();

        TaskManagerInfo stored = admin.resources(FlinkDeployment.class)
                .inNamespace(ns)
                .withName("zero-status")
                .get()
                .getStatus()
                .getTaskManager();
        assertThat(stored.getLabelSelector()).isEmpty();
        assertThat(stored.getReplicas()).isZero();
    }
}
