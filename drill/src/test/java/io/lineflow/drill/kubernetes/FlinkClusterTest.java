package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
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

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/** What the Kubernetes drill reads of the cluster, read from fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class FlinkClusterTest {
    private static final String NS = "lineflow";

    KubernetesClient client;

    /** An address on which nothing listens: a JobManager whose REST API does not answer. */
    private static final URI NOBODY = URI.create("http://127.0.0.1:1");

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
    void podsByLabelTheirUidsAndImages() {
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
        operator.event("lineflow.1", "CHECKPOINTING_DISABLED", "other");
        assertThat(flink.eventReported("CHECKPOINTING_DISABLED"))
                .as("on another deployment")
                .isFalse();
        operator.event("lineflow.2", "CHECKPOINTING_DISABLED", FlinkCluster.NAME);
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
    void anotherDeploymentIsReadByItsOwnNameEventsSummaryAndPods() {
        FlinkCluster other = flink.deployment("incident-beam");
        operator.event("incident-beam.1", "RemediationRestartedTaskManagers", "incident-beam");
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("incident-beam-lineflow-health")
                        .withNamespace(NS)
                        .addToAnnotations(FlinkCluster.STATUS_ANNOTATION, "CRITICAL")
                        .endMetadata()
                        .build())
                .create();
        assertThat(other.eventReported("RemediationRestartedTaskManagers")).isTrue();
        assertThat(flink.eventReported("RemediationRestartedTaskManagers")).isFalse();
        assertThat(other.healthStatus()).isEqualTo("CRITICAL");
        assertThat(flink.healthStatus()).isNotEqualTo("CRITICAL");
        assertThat(other.podsOf("taskmanager")).containsEntry("app", "incident-beam");
        assertThat(flink.podsOf("jobmanager")).isEqualTo(FlinkCluster.JM);
    }

    /** The cluster, with the JobManagers' REST APIs at {@code rest} by pod IP; at any other IP nobody answers. */
    private FlinkCluster withRest(Map<String, URI> rest) {
        return new FlinkCluster(client, NS, "operator", ip -> rest.getOrDefault(ip, NOBODY));
    }

    /**
     * {@code /jobs/job-1} as a JobManager's REST API answers it (Flink 1.20): the time the job last
     * entered each state, 0 for a state it has not been in; RUNNING also counts tasks elsewhere.
     */
    private static String jobDetails(String state, long running) {
        return "{\"jid\":\"job-1\",\"name\":\"lineflow\",\"isStoppable\":false,\"state\":\"" + state + "\","
                + "\"job-type\":\"STREAMING\",\"start-time\":1700000000000,\"end-time\":-1,\"duration\":60000,"
                + "\"maxParallelism\":-1,\"now\":1700000060000,"
                + "\"timestamps\":{\"FAILED\":0,\"CREATED\":1700000000100,\"INITIALIZING\":1700000000000,"
                + "\"RESTARTING\":0,\"RUNNING\":" + running + ",\"SUSPENDED\":0,\"CANCELLING\":0,"
                + "\"FAILING\":0,\"RECONCILING\":0,\"CANCELED\":0,\"FINISHED\":0},"
                + "\"vertices\":[{\"id\":\"v1\",\"name\":\"Source: kafka-source\",\"parallelism\":2,"
                + "\"status\":\"RUNNING\",\"tasks\":{\"RUNNING\":2,\"FAILED\":0}}],"
                + "\"status-counts\":{\"RUNNING\":1,\"FAILED\":0}}";
    }

    @Test
    void theLeaderIsTheJobManagerWhoseIpTheHaConfigMapNames() {
        assertThat(flink.leader()).as("no HA ConfigMap yet").isEmpty();
        operator.secondJobManagerLeading();
        assertThat(flink.leader())
                .hasValueSatisfying(p -> assertThat(p.getMetadata().getName()).isEqualTo("lineflow-jobmanager-2"));
    }

    @Test
    void noLeaderWhileTheLeadingComponentsNameDifferentJobManagers() {
        operator.secondJobManager();
        operator.haLeader("6c1b", FakeOperator.JM_2_IP, FakeOperator.JM_1_IP);
        assertThat(flink.leader()).isEmpty();
    }

    @Test
    void noLeaderWhenTheHaConfigMapNamesNoJobManagersIp() {
        operator.secondJobManager();
        operator.haLeader("6c1b", "10.244.0.99", "10.244.0.99");
        assertThat(flink.leader()).isEmpty();
    }

    @Test
    void runningSinceIsWhatTheLeadingJobManagerSaysAndFollowsTheLeadership() throws IOException {
        operator.secondJobManagerLeading();
        try (TestingHttpServer first = new TestingHttpServer();
                TestingHttpServer second = new TestingHttpServer()) {
            first.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_001_000L));
            second.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_002_000L));
            FlinkCluster flink =
                    withRest(Map.of(FakeOperator.JM_1_IP, first.uri(), FakeOperator.JM_2_IP, second.uri()));

            assertThat(flink.runningSince()).contains(1_700_000_002_000L);
            assertThat(second.asked()).containsExactly("/jobs/job-1");
            assertThat(first.asked()).as("the standby").isEmpty();

            operator.haLeader("7d2c", FakeOperator.JM_1_IP, FakeOperator.JM_1_IP);
            assertThat(flink.runningSince()).contains(1_700_000_001_000L);
            assertThat(second.asked()).as("the new standby").containsExactly("/jobs/job-1");
        }
    }

    @Test
    void runningSinceIsEmptyWithoutALeaderAndNoJobManagerIsAsked() throws IOException {
        operator.secondJobManager();
        try (TestingHttpServer first = new TestingHttpServer();
                TestingHttpServer second = new TestingHttpServer()) {
            first.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_001_000L));
            second.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_002_000L));
            FlinkCluster flink =
                    withRest(Map.of(FakeOperator.JM_1_IP, first.uri(), FakeOperator.JM_2_IP, second.uri()));
            assertThat(flink.runningSince()).as("no HA ConfigMap").isEmpty();

            operator.haLeader("6c1b", FakeOperator.JM_2_IP, FakeOperator.JM_1_IP);
            assertThat(flink.runningSince()).as("leadership changing hands").isEmpty();
            assertThat(first.asked()).isEmpty();
            assertThat(second.asked()).isEmpty();
        }
    }

    @Test
    void runningSinceIsEmptyWhileTheOperatorReportsNoJobId() throws IOException {
        operator.secondJobManagerLeading();
        FlinkDeployment fd = operator.deployment();
        fd.getStatus().getJobStatus().setJobId(null);
        client.resource(fd).updateStatus();
        try (TestingHttpServer leader = new TestingHttpServer()) {
            leader.on("/jobs/", jobDetails("RUNNING", 1_700_000_002_000L));
            FlinkCluster flink = withRest(Map.of(FakeOperator.JM_2_IP, leader.uri()));

            assertThat(flink.runningSince()).isEmpty();
            assertThat(leader.asked()).isEmpty();
        }
    }

    @Test
    void runningSinceIsEmptyWhenTheLeaderDoesNotAnswerOrNotWithTheJob() throws IOException {
        operator.secondJobManagerLeading();
        assertThat(withRest(Map.of()).runningSince()).as("nobody listening").isEmpty();
        try (TestingHttpServer leader = new TestingHttpServer()) {
            FlinkCluster flink = withRest(Map.of(FakeOperator.JM_2_IP, leader.uri()));
            assertThat(flink.runningSince()).as("the job not (yet) known: 404").isEmpty();

            leader.on("/jobs/job-1", 503, jobDetails("RUNNING", 1_700_000_002_000L));
            assertThat(flink.runningSince())
                    .as("an error status, whatever the body")
                    .isEmpty();

            leader.on("/jobs/job-1", "{\"jid\":\"job-1\",\"state\":\"RUNNING\"}");
            assertThat(flink.runningSince()).as("no timestamps").isEmpty();
            assertThat(leader.asked()).containsOnly("/jobs/job-1");
        }
    }

    /** A new leader recovering the job reports RUNNING's timestamp as 0 (not yet entered): not running. */
    @Test
    void runningSinceOfAJobTheNewLeaderHasNotRunYetIsEmpty() throws IOException {
        operator.secondJobManagerLeading();
        try (TestingHttpServer leader = new TestingHttpServer()) {
            leader.on("/jobs/job-1", jobDetails("INITIALIZING", 0));
            assertThat(withRest(Map.of(FakeOperator.JM_2_IP, leader.uri())).runningSince())
                    .isEmpty();
        }
    }

    @Test
    void busyTaskManagersAreThoseTheLeaderListsWithATakenSlot() throws IOException {
        operator.secondJobManagerLeading();
        assertThat(withRest(Map.of()).busyTaskManagers()).as("nobody listening").isEmpty();
        try (TestingHttpServer standby = new TestingHttpServer();
                TestingHttpServer leader = new TestingHttpServer()) {
            standby.on("/taskmanagers", taskManagers("lineflow-taskmanager-1-9", 0));
            leader.on(
                    "/taskmanagers",
                    "{\"taskmanagers\":["
                            + taskManager("lineflow-taskmanager-1-1", 2) + ","
                            + taskManager("lineflow-taskmanager-1-2", 0) + ","
                            + taskManager("lineflow-taskmanager-1-3", 1) + "]}");
            FlinkCluster flink =
                    withRest(Map.of(FakeOperator.JM_1_IP, standby.uri(), FakeOperator.JM_2_IP, leader.uri()));
            assertThat(flink.busyTaskManagers())
                    .as("the spare (every slot free) is not one")
                    .containsExactly("lineflow-taskmanager-1-2", "lineflow-taskmanager-1-3");
            assertThat(standby.asked()).isEmpty();
        }
    }

    @Test
    void readerPartitionsAreTheInputTopicsPartitionsTheLeadersVertexMetricsList() throws IOException {
        operator.secondJobManagerLeading();
        assertThat(withRest(Map.of()).readerPartitions("device-events"))
                .as("nobody listening")
                .isEmpty();
        try (TestingHttpServer leader = new TestingHttpServer()) {
            leader.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_002_000L));
            leader.on("/jobs/job-1/vertices/v1/metrics", "[]");
            FlinkCluster flink = withRest(Map.of(FakeOperator.JM_2_IP, leader.uri()));
            assertThat(flink.readerPartitions("device-events"))
                    .as("no split given to a reader yet")
                    .contains(Set.of());

            String reader = "Source__kafka-source.KafkaSourceReader.topic.";
            leader.on(
                    "/jobs/job-1/vertices/v1/metrics",
                    "[{\"id\":\"0." + reader + "device-events.partition.0.currentOffset\"},"
                            + "{\"id\":\"1." + reader + "device-events.partition.2.currentOffset\"},"
                            + "{\"id\":\"1." + reader + "device-events.partition.2.committedOffset\"},"
                            + "{\"id\":\"0." + reader + "other-topic.partition.1.currentOffset\"},"
                            + "{\"id\":\"0.numRecordsOut\"}]");
            assertThat(flink.readerPartitions("device-events")).contains(Set.of(0, 2));
            assertThat(flink.readerPartitions("missing")).contains(Set.of());
        }
    }

    /** A TaskManager of two slots as {@code /taskmanagers} lists it. */
    static String taskManager(String id, int freeSlots) {
        return "{\"id\":\"" + id + "\",\"path\":\"pekko.tcp://flink@10.244.0.20:6122/user/rpc/taskmanager_0\","
                + "\"dataPort\":6121,\"jmxPort\":-1,\"timeSinceLastHeartbeat\":1700000060000,"
                + "\"slotsNumber\":2,\"freeSlots\":" + freeSlots + ",\"totalResource\":{},\"freeResource\":{}}";
    }

    static String taskManagers(String id, int freeSlots) {
        return "{\"taskmanagers\":[" + taskManager(id, freeSlots) + "]}";
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
