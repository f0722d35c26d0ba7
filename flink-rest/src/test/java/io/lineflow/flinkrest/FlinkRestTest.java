package io.lineflow.flinkrest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.testing.Await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The client against the REST API of a real Flink 1.20 MiniCluster: one job checkpointing into a
 * directory, one without checkpoints. Every typed field asserted here is one a lineflow component
 * reads; a misnamed property would leave it at its default and fail the test.
 */
class FlinkRestTest {
    private static MiniCluster cluster;
    private static String base;
    private static JobID checkpointing;
    private static JobID withoutCheckpoints;
    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(10));

    @BeforeAll
    static void startCluster() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "checkpoints")).toAbsolutePath();
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build());
        cluster.start();
        base = cluster.getRestAddress().get().toString();
        checkpointing =
                cluster.submitJob(slowJob("with-checkpoints", 100)).get().getJobID();
        withoutCheckpoints =
                cluster.submitJob(slowJob("without-checkpoints", 0)).get().getJobID();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.close();
    }

    /** Counts up slowly (about 1,000 records/s) so that it runs until cancelled. */
    private static JobGraph slowJob(String name, long checkpointMillis) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.disableOperatorChaining(); // the source's vertex sends every record over the network
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
            env.getCheckpointConfig()
                    .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        }
        env.fromSequence(0, Long.MAX_VALUE)
                .map((MapFunction<Long, Long>) v -> {
                    // Not a wait: what keeps the job slow, so it runs until the class ends.
                    Thread.sleep(1);
                    return v;
                })
                .sinkTo(new DiscardingSink<>());
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(name);
        return graph.getJobGraph();
    }

    @Test
    void readsTheJobsTheirStateAndWhenTheyStarted() throws Exception {
        await(
                "the checkpointing job RUNNING",
                () -> rest.job(base, checkpointing.toHexString()).running());
        List<JobOverview> jobs = rest.jobs(base);
        assertThat(jobs).extracting(JobOverview::id).contains(checkpointing.toHexString());
        JobOverview job = jobs.stream()
                .filter(j -> j.id().equals(checkpointing.toHexString()))
                .findFirst()
                .orElseThrow();
        assertThat(job.name()).isEqualTo("with-checkpoints");
        assertThat(job.state()).isEqualTo(JobStatus.RUNNING);
        assertThat(job.startTime()).isPositive();

        JobDetails details = rest.job(base, checkpointing.toHexString());
        assertThat(details.state()).isEqualTo(JobStatus.RUNNING);
        assertThat(details.runningSince()).isGreaterThanOrEqualTo(job.startTime());
        assertThat(details.vertices()).isNotEmpty().allSatisfy(v -> {
            assertThat(v.id()).isNotBlank();
            assertThat(v.parallelism()).isEqualTo(1);
            assertThat(v.status()).isEqualTo("RUNNING");
        });
        assertThat(details.vertices()).as("source, map, sink: chaining is off").hasSize(3);
        assertThat(details.sourceVertexIds())
                .as("the plan's one node without inputs is the source's vertex")
                .containsExactlyElementsOf(details.vertices().stream()
                        .filter(v -> v.name().startsWith("Source:"))
                        .map(JobDetails.Vertex::id)
                        .toList());
        assertThat(rest.taskManagers(base)).singleElement().satisfies(tm -> {
            assertThat(tm.id()).isNotBlank();
            assertThat(tm.slotsNumber()).isEqualTo(2);
            assertThat(tm.busy()).as("it runs the job's task: %s", tm).isTrue();
        });
        assertThat(rest.answers(base)).isTrue();
    }

    @Test
    void readsTheCheckpointConfigurationAndStatistics() throws Exception {
        String id = checkpointing.toHexString();
        await(
                "two completed checkpoints of job " + id,
                () -> rest.checkpoints(base, id).counts().completed() >= 2);
        CheckpointConfig config = rest.checkpointConfig(base, id).orElseThrow();
        assertThat(config.interval()).isEqualTo(100);
        assertThat(config.timeout()).isPositive();
        assertThat(config.externalization().enabled()).isTrue();
        assertThat(config.tolerableFailedCheckpoints()).isNotNull();

        CheckpointStats stats = rest.checkpoints(base, id);
        assertThat(stats.counts().total()).isGreaterThanOrEqualTo(stats.counts().completed());
        CheckpointStats.Checkpoint latest = stats.latest().completed();
        assertThat(latest.id()).isPositive();
        assertThat(latest.status()).isEqualTo("COMPLETED");
        assertThat(latest.triggerTimestamp()).isPositive();
        assertThat(latest.latestAckTimestamp()).isGreaterThanOrEqualTo(latest.triggerTimestamp());
        assertThat(latest.externalPath()).startsWith("file:").contains("chk-" + latest.id());
        assertThat(latest.stateSize()).isPositive(); // the sequence source's split in its state
        assertThat(stats.history())
                .anySatisfy(h -> assertThat(h.status()).isEqualTo("COMPLETED"))
                .allSatisfy(h -> assertThat(h.id()).isPositive());
    }

    @Test
    void readsMetricsByNameAndAggregated() throws Exception {
        String id = checkpointing.toHexString();
        await("the checkpointing job RUNNING", () -> rest.job(base, id).running());
        assertThat(rest.metrics(base, "/jobs/" + id + "/metrics", List.of("numRestarts"), null))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.id()).isEqualTo("numRestarts");
                    assertThat(m.value()).isEqualTo("0");
                });
        String vertex = rest.job(base, id).vertices().get(0).id();
        String path = "/jobs/" + id + "/vertices/" + vertex + "/subtasks/metrics";
        await(
                "numRecordsOut among the metrics of " + path,
                () -> rest.metrics(base, path, List.of(), null).stream().anyMatch(m -> m.id().equals("numRecordsOut")));
        await(
                "a positive sum of numRecordsOut over " + path,
                () -> rest.metrics(base, path, List.of("numRecordsOut"), "sum").stream()
                        .anyMatch(m -> m.sum() != null && m.sum() > 0));
    }

    @Test
    void aJobWithoutCheckpointingHasNoCheckpointConfiguration() throws Exception {
        String id = withoutCheckpoints.toHexString();
        await("the job without checkpoints RUNNING", () -> rest.job(base, id).running());
        assertThat(rest.checkpointConfig(base, id)).isEmpty();
        assertThat(rest.checkpoints(base, id).counts().completed()).isZero();
        // The other job on the same cluster checkpoints: the empty answer is this job's own.
        await(
                "a completed checkpoint of the checkpointing job",
                () -> rest.checkpoints(base, checkpointing.toHexString())
                                .counts()
                                .completed()
                        > 0);
        assertThat(rest.checkpointConfig(base, checkpointing.toHexString())).isPresent();
    }

    /** The shape of a failed stop-with-savepoint's {@code failure-cause}, as Flink 1.20 answered it in the soak. */
    @Test
    void aFailureCauseIsToldInOneLine() {
        ObjectMapper json = new ObjectMapper();
        String first =
                "java.util.concurrent.CompletionException: org.apache.flink.runtime.checkpoint.CheckpointException:"
                        + " Checkpoint triggering task Source (1/4) is not being executed at the moment.";
        ObjectNode cause = json.createObjectNode()
                .put("class", "java.util.concurrent.CompletionException")
                .put(
                        "stack-trace",
                        first
                                + "\n\tat java.base/java.util.concurrent.CompletableFuture.encodeRelay(CompletableFuture.java:368)"
                                + "\nCaused by: org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint\n")
                .put("serialized-throwable", "rO0ABXNyAClvcmcuYXBhY2hl");

        assertThat(FlinkRest.firstLine(cause)).isEqualTo(first);
        assertThat(FlinkRest.firstLine(json.createObjectNode().put("class", "java.io.IOException")))
                .isEqualTo("java.io.IOException");
    }

    @Test
    void anHttpErrorCarriesItsStatus() {
        assertThatThrownBy(() -> rest.job(base, new JobID().toHexString()))
                .isInstanceOfSatisfying(
                        FlinkRestException.class, e -> assertThat(e.status()).isEqualTo(404))
                .hasMessageContaining("/jobs/");
        assertThat(rest.answers("http://127.0.0.1:1")).isFalse();
    }

    /** The test kit's wait: a {@link FlinkRestException} means the job or its metrics are not there yet. */
    private static void await(String what, java.util.concurrent.Callable<Boolean> condition)
            throws InterruptedException {
        Await.until(what, Duration.ofSeconds(60), FlinkRestException.class::isInstance, condition);
    }
}
