package io.lineflow.reconciler.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.Test;

class OperatorClientTest {
    /** A FlinkDeployment as operator 1.15 writes it while deleting: a lifecycle state and conditions 1.10 lacks. */
    private static final String FROM_NEWER_OPERATOR = """
            {"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
             "metadata": {"name": "lineflow", "namespace": "lineflow"},
             "spec": {"flinkVersion": "v1_20", "job": {"upgradeMode": "last-state", "state": "running"}},
             "status": {"lifecycleState": "DELETING", "jobStatus": {"state": "RUNNING"},
                        "conditions": [{"type": "Running", "status": "True"}]}}
            """;

    @Test
    void readsADeploymentWithALifecycleStateOfANewerOperator() {
        FlinkDeployment fd = OperatorClient.serialization().unmarshal(FROM_NEWER_OPERATOR, FlinkDeployment.class);

        assertThat(fd.getMetadata().getName()).isEqualTo("lineflow");
        assertThat(fd.getSpec().getJob().getUpgradeMode()).isEqualTo(UpgradeMode.LAST_STATE);
        assertThat(fd.getStatus().getJobStatus().getState()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void fabric8sDefaultSerializationFailsOnTheSameDeployment() {
        // What the reconciler's informer met before: the whole object unreadable.
        assertThatThrownBy(() -> new KubernetesSerialization().unmarshal(FROM_NEWER_OPERATOR, FlinkDeployment.class))
                .hasStackTraceContaining("DELETING");
    }
}
