package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * The job as the leading JobManager's REST API describes it: the leader as a {@link FakeOperator}
 * records it, its REST API served on loopback.
 */
@EnableKubernetesMockClient(crud = true)
class LeaderRestTest {
    private static final String NS = "lineflow";

    KubernetesClient client;

    /** An address on which nothing listens: a JobManager whose REST API does not answer. */
    private static final URI NOBODY = URI.create("http://127.0.0.1:1");

    private FakeOperator operator;

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    /** The job through the JobManagers' REST APIs at {@code rest} by pod IP; at any other IP nobody answers. */
    private LeaderRest withRest(Map<String, URI> rest) {
        return new LeaderRest(
                new DeploymentResource(client, NS, FlinkCluster.NAME),
                new ClusterPods(client, NS, FlinkCluster.NAME),
                ip -> rest.getOrDefault(ip, NOBODY));
    }

    /**
     * Both JobManagers' REST APIs, {@code first}'s at {@link FakeOperator#JM_1_IP}, {@code second}'s
     * at {@link FakeOperator#JM_2_IP}, each with job-1 RUNNING: since 1_700_000_001_000 as the first
     * says, since 1_700_000_002_000 as the second says.
     */
    private LeaderRest runningOnBoth(TestingHttpServer first, TestingHttpServer second) {
        first.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_001_000L));
        second.on("/jobs/job-1", jobDetails("RUNNING", 1_700_000_002_000L));
        return withRest(Map.of(FakeOperator.JM_1_IP, first.uri(), FakeOperator.JM_2_IP, second.uri()));
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
    void runningSinceIsWhatTheLeadingJobManagerSaysAndFollowsTheLeadership() throws IOException {
        operator.secondJobManagerLeading();
        try (TestingHttpServer first = new TestingHttpServer();
                TestingHttpServer second = new TestingHttpServer()) {
            LeaderRest rest = runningOnBoth(first, second);

            assertThat(rest.runningSince()).contains(1_700_000_002_000L);
            assertThat(second.asked()).containsExactly("/jobs/job-1");
            assertThat(first.asked()).as("the standby").isEmpty();

            operator.haLeader("7d2c", FakeOperator.JM_1_IP, FakeOperator.JM_1_IP);
            assertThat(rest.runningSince()).contains(1_700_000_001_000L);
            assertThat(second.asked()).as("the new standby").containsExactly("/jobs/job-1");
        }
    }

    @Test
    void runningSinceIsEmptyWithoutALeaderAndNoJobManagerIsAsked() throws IOException {
        operator.secondJobManager();
        try (TestingHttpServer first = new TestingHttpServer();
                TestingHttpServer second = new TestingHttpServer()) {
            LeaderRest rest = runningOnBoth(first, second);
            assertThat(rest.runningSince()).as("no HA ConfigMap").isEmpty();

            operator.haLeader("6c1b", FakeOperator.JM_2_IP, FakeOperator.JM_1_IP);
            assertThat(rest.runningSince()).as("leadership changing hands").isEmpty();
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
            LeaderRest rest = withRest(Map.of(FakeOperator.JM_2_IP, leader.uri()));

            assertThat(rest.runningSince()).isEmpty();
            assertThat(leader.asked()).isEmpty();
        }
    }

    @Test
    void runningSinceIsEmptyWhenTheLeaderDoesNotAnswerOrNotWithTheJob() throws IOException {
        operator.secondJobManagerLeading();
        assertThat(withRest(Map.of()).runningSince()).as("nobody listening").isEmpty();
        try (TestingHttpServer leader = new TestingHttpServer()) {
            LeaderRest rest = withRest(Map.of(FakeOperator.JM_2_IP, leader.uri()));
            assertThat(rest.runningSince()).as("the job not (yet) known: 404").isEmpty();

            leader.on("/jobs/job-1", 503, jobDetails("RUNNING", 1_700_000_002_000L));
            assertThat(rest.runningSince())
                    .as("an error status, whatever the body")
                    .isEmpty();

            leader.on("/jobs/job-1", "{\"jid\":\"job-1\",\"state\":\"RUNNING\"}");
            assertThat(rest.runningSince()).as("no timestamps").isEmpty();
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
            LeaderRest rest = withRest(Map.of(FakeOperator.JM_1_IP, standby.uri(), FakeOperator.JM_2_IP, leader.uri()));
            assertThat(rest.busyTaskManagers())
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
            LeaderRest rest = withRest(Map.of(FakeOperator.JM_2_IP, leader.uri()));
            assertThat(rest.readerPartitions("device-events"))
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
            assertThat(rest.readerPartitions("device-events")).contains(Set.of(0, 2));
            assertThat(rest.readerPartitions("missing")).contains(Set.of());
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
}
