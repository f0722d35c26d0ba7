package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Scenario;
import io.lineflow.drill.core.ScenarioResult;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What each fault of the Kubernetes drill must have done, judged on a {@link FakeOperator}. */
@EnableKubernetesMockClient(crud = true)
class AfterFaultTest {
    private static final String NS = "lineflow";
    private static final String RECONCILER_IP = "10.244.0.20";
    private static final URI NOBODY = URI.create("http://127.0.0.1:1");

    KubernetesClient client;

    private FakeOperator operator;
    private FlinkCluster flink;
    private final List<String> log = new ArrayList<>();
    private final ScenarioResult result = new ScenarioResult(new Scenario("kubernetes:x", false, true));

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
        operator.secondJobManager();
        operator.haLeader("6c1b", FakeOperator.JM_1_IP, FakeOperator.JM_1_IP);
        flink = new FlinkCluster(client, NS, "operator");
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    /** The cluster with the reconciler's scrape endpoint at {@code reconciler}. */
    private AfterFault.Cluster cluster(URI reconciler) {
        Pod pod = FakeOperator.pod(NS, "lineflow-reconciler-1", ReconcilerMetrics.RECONCILER, "reconciler", true);
        pod.getStatus().setPodIP(RECONCILER_IP);
        client.resource(pod).createOr(p -> p.update());
        return new AfterFault.Cluster(
                flink,
                new ReconcilerMetrics(flink.pods(), ip -> ip.equals(RECONCILER_IP) ? reconciler : NOBODY),
                log::add);
    }

    private AfterFault.Before before(AfterFault.Cluster c) {
        return AfterFault.Before.of(c, System.currentTimeMillis());
    }

    private void jobId(String id) {
        FlinkDeployment fd = operator.deployment();
        fd.getStatus().getJobStatus().setJobId(id);
        client.resource(fd).updateStatus();
    }

    @Test
    void everyFaultOfTheKubernetesDrillHasItsChecksAndNoOtherFaultHas() {
        for (Fault f : Fault.values()) {
            if (Fault.on(Backend.Kind.KUBERNETES).contains(f)) {
                assertThat(AfterFault.of(f)).as(f.id).isNotNull();
            } else {
                assertThatThrownBy(() -> AfterFault.of(f))
                        .as(f.id)
                        .hasMessageContaining("not a fault of the Kubernetes");
            }
        }
        assertThat(AfterFault.of(Fault.JM_LEADER_DELETE)).isEqualTo(new AfterFault.NewLeader(Duration.ofMinutes(5)));
        assertThat(AfterFault.of(Fault.JM_LEADER_KILL)).isEqualTo(new AfterFault.NewLeader(Duration.ZERO));
    }

    @Test
    void aFaultToRideOutMustLeaveTheJobRunningAndItsPodsOrLeaderAndJobAsTheyWere() {
        AfterFault.Cluster c = cluster(NOBODY);
        AfterFault.LeftAlone operatorRestart = new AfterFault.LeftAlone("the operator's restart", true);
        AfterFault.LeftAlone standbyDelete = new AfterFault.LeftAlone("deleting the standby JobManager", false);
        AfterFault.Before before = before(c);

        operatorRestart.check(c, before, result);
        standbyDelete.check(c, before, result);
        assertThat(result.problems).isEmpty();

        client.pods().inNamespace(NS).withName("lineflow-jobmanager-2").delete();
        standbyDelete.check(c, before, result);
        assertThat(result.problems)
                .as("the standby replaced: its pods may change")
                .isEmpty();
        operatorRestart.check(c, before, result);
        assertThat(result.problems)
                .containsExactly("JOB the operator's restart replaced the JobManager pod or the job");

        result.problems.clear();
        operator.haLeader("9d2e", FakeOperator.JM_1_IP, FakeOperator.JM_1_IP);
        standbyDelete.check(c, before, result);
        assertThat(result.problems)
                .containsExactly("JOB deleting the standby JobManager changed the leader or the job");

        result.problems.clear();
        result.recoveryMillis = 4_000L;
        jobId("job-2");
        operatorRestart.check(c, before(c), result);
        assertThat(result.problems).containsExactly("JOB the operator's restart interrupted the job");
    }

    @Test
    void aLeaderFailoverMustSeeANewLeader() {
        AfterFault.Cluster c = cluster(NOBODY);
        new AfterFault.NewLeader(Duration.ZERO).check(c, before(c), result);
        assertThat(result.problems).containsExactly("LEADER no new JobManager leader after the leader's kubernetes:x");

        result.problems.clear();
        result.leaderMillis = 9_000L;
        new AfterFault.NewLeader(Duration.ZERO).check(c, before(c), result);
        assertThat(result.problems).isEmpty();
    }

    @Test
    void anUpgradeMustRunTheReleasesImageAtItsParallelismAndASavepointUpgradeRecordItsSavepoint() {
        AfterFault.Cluster c = cluster(NOBODY);
        ReleaseFlows.Release release = ReleaseFlows.Release.SAVEPOINT;
        new AfterFault.Deployed(release, false).check(c, before(c), result);
        assertThat(result.problems)
                .containsExactly("UPGRADE expected image lineflow-job:e2e-upgrade-2 at parallelism 2, the JobManager"
                        + " runs lineflow-job:e2e lineflow-job:e2e and the deployed spec is lineflow-job:e2e at"
                        + " parallelism 2");

        result.problems.clear();
        client.resources(FlinkDeployment.class)
                .inNamespace(NS)
                .withName(FlinkCluster.NAME)
                .edit(fd -> {
                    fd.getSpec().setImage(release.image());
                    return fd;
                });
        for (String jm : List.of("lineflow-jobmanager-1", "lineflow-jobmanager-2")) {
            client.pods().inNamespace(NS).withName(jm).edit(p -> {
                p.getSpec().getContainers().get(0).setImage(release.image());
                return p;
            });
        }
        Await.orFail(
                Duration.ofSeconds(10),
                Duration.ofMillis(20),
                "the fake operator deploying the new image",
                () -> flink.deployment()
                        .reconciledSpec()
                        .map(s -> s.getImage().equals(release.image()))
                        .orElse(false));
        new AfterFault.Deployed(release, false).check(c, before(c), result);
        assertThat(result.problems).isEmpty();
        new AfterFault.Deployed(release, true).check(c, before(c), result);
        assertThat(result.problems)
                .containsExactly("UPGRADE the operator recorded no savepoint for the savepoint upgrade");

        result.problems.clear();
        FlinkDeployment fd = operator.deployment();
        fd.getStatus().getJobStatus().setUpgradeSavepointPath("s3://lineflow/savepoints/savepoint-1");
        client.resource(fd).updateStatus();
        new AfterFault.Deployed(release, true).check(c, before(c), result);
        assertThat(result.problems).isEmpty();
        assertThat(log).contains("  restored from savepoint s3://lineflow/savepoints/savepoint-1");
    }

    @Test
    void anS3OutageMustBeCountedAsFailedCheckpointsByTheReconciler() throws Exception {
        try (TestingHttpServer reconciler = new TestingHttpServer()) {
            String failed = "lineflow_reconciler_checkpoints_failed{namespace=\"lineflow\",name=\"lineflow\"} ";
            reconciler.on("/metrics", failed + "4\n");
            AfterFault.Cluster c = cluster(reconciler.uri());
            AfterFault.Before before = before(c);
            assertThat(before.failedCheckpoints()).isEqualTo(4.0);

            new AfterFault.CheckpointFailuresCounted(Duration.ofMillis(200)).check(c, before, result);
            assertThat(result.problems)
                    .containsExactly("RECONCILER reported no failed checkpoint for the S3 outage"
                            + " (lineflow_reconciler_checkpoints_failed stayed 4.0)");

            result.problems.clear();
            reconciler.on("/metrics", failed + "6\n");
            new AfterFault.CheckpointFailuresCounted(Duration.ofMillis(200)).check(c, before, result);
            assertThat(result.problems).isEmpty();
            assertThat(log).contains("  the reconciler counts 6 failed checkpoints, 4 before the outage");
        }
    }
}
