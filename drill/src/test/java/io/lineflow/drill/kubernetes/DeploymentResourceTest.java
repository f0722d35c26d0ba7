package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.status.Savepoint;
import org.apache.flink.kubernetes.operator.api.status.SavepointInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The FlinkDeployment's spec and status as the drill reads them, from fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class DeploymentResourceTest {
    private static final String NS = "lineflow";

    KubernetesClient client;

    private FakeOperator operator;
    private DeploymentResource deployment;

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
        deployment = new DeploymentResource(client, NS, FlinkCluster.NAME);
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    @Test
    void theJobAsTheOperatorReportsIt() {
        assertRunsAsDeployed(deployment);
    }

    /** {@code deployment} read as the {@link FakeOperator} deploys lineflow: job-1 RUNNING, the spec stable. */
    static void assertRunsAsDeployed(DeploymentResource deployment) {
        assertThat(deployment.jobState()).contains(JobStatus.RUNNING);
        assertThat(deployment.jobId()).isEqualTo("job-1");
        assertThat(deployment.lifecycle()).contains(ResourceLifecycleState.STABLE);
        assertThat(deployment.reconciledSpec())
                .hasValueSatisfying(s -> assertThat(s.getImage()).isEqualTo("lineflow-job:e2e"));
    }

    @Test
    void aDeploymentThatIsGoneReadsAsUnknownNotAsAnError() {
        client.resources(FlinkDeployment.class).inNamespace(NS).delete();
        assertThat(deployment.jobState()).isEmpty();
        assertThat(deployment.jobId()).isEmpty();
        assertThat(deployment.lifecycle()).isEmpty();
        assertThat(deployment.reconciledSpec()).isEmpty();
    }

    @Test
    void settingTheJobStateChangesNothingElseOfTheSpec() {
        FlinkDeployment before = operator.deployment();
        deployment.setJobState(JobState.SUSPENDED);
        FlinkDeployment after = operator.deployment();
        assertThat(after.getSpec().getJob().getState()).isEqualTo(JobState.SUSPENDED);
        after.getSpec().getJob().setState(JobState.RUNNING);
        assertThat(after.getSpec()).isEqualTo(before.getSpec());
    }

    @Test
    void theSavepointOfAnUpgradeFromEitherFieldTheOperatorRecordsItIn() {
        assertThat(deployment.upgradeSavepoint()).isEmpty();
        FlinkDeployment fd = operator.deployment();
        fd.getStatus().getJobStatus().setUpgradeSavepointPath("s3://upgrade");
        client.resource(fd).updateStatus();
        assertThat(deployment.upgradeSavepoint()).isEqualTo("s3://upgrade");
        fd = operator.deployment();
        Savepoint last = new Savepoint();
        last.setLocation("s3://last");
        SavepointInfo info = new SavepointInfo();
        info.setLastSavepoint(last);
        fd.getStatus().getJobStatus().setSavepointInfo(info);
        client.resource(fd).updateStatus();
        assertThat(deployment.upgradeSavepoint()).isEqualTo("s3://last");
    }
}
