package io.lineflow.reconciler.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.model.FlinkObservation;

import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;

/** The HTTP Flink REST client against a fake Flink REST server speaking Flink's JSON. */
class HttpFlinkRestClientTest {

    private TestingFlinkRestServer server;
    private final HttpFlinkRestClient client = new HttpFlinkRestClient(Duration.ofMillis(500));
    private final long now = System.currentTimeMillis();

    @BeforeEach
    void start() throws IOException {
        server = new TestingFlinkRestServer();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void readsJobRestartsCheckpointsAndTheSourceOperatorsOwnRate() {
        server.runningJob(now, 200.0, 4, false);
        FlinkObservation o = client.observe(server.url(), "device-events");
        assertThat(o.error()).isNull();
        FlinkObservation.Job job = o.job();
        assertThat(job.id())
                .as("the RUNNING job wins over an older canceled one")
                .isEqualTo("j1");
        assertThat(job.state()).isEqualTo(JobStatus.RUNNING);
        assertThat(job.numRestarts()).isEqualTo(2L);
        assertThat(job.checkpoints().enabled()).isTrue();
        assertThat(job.checkpoints().interval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(job.checkpoints().timeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(job.checkpoints().tolerableFailures()).isEqualTo(3);
        assertThat(job.checkpoints().externalized()).isTrue();
        assertThat(job.checkpoints().completed()).isEqualTo(11);
        assertThat(job.checkpoints().failed()).isEqualTo(1);
        assertThat(job.checkpoints().inProgress()).isEqualTo(1);
        assertThat(job.checkpoints().latestCompletedId()).isEqualTo(12L);
        assertThat(job.checkpoints().latestCompletedAt().toEpochMilli()).isEqualTo(now - 30_000);
        assertThat(job.checkpoints().latestCompletedExternalPath()).isEqualTo("file:/flink-data/checkpoints/j1/chk-12");
        assertThat(job.checkpoints().latestFailedAt().toEpochMilli()).isEqualTo(now - 600_000);
        assertThat(job.checkpoints().latestFailureMessage()).contains("expired");
        assertThat(job.sources()).as("the sink vertex has no reader metrics").hasSize(1);
        assertThat(job.sources().get(0).vertexName()).startsWith("Source: kafka-source");
        assertThat(job.sources().get(0).recordsOutPerSecond())
                .as("operator metric, not the chained task's")
                .isEqualTo(200.0);
        assertThat(job.assignedSplits()).isEqualTo(4);
        assertThat(job.partitionsRead()).isEqualTo(TestUtils.partitions("device-events", 0, 1, 2, 3));
    }

    @Test
    void countsPartitionsAssignedToTwoReaders() {
        server.runningJob(now, 200.0, 4, true);
        FlinkObservation.Job job = client.observe(server.url(), "device-events").job();
        assertThat(job.assignedSplits()).isEqualTo(8);
        assertThat(job.partitionsRead()).hasSize(4);
    }

    @Test
    void findsEveryKafkaSourceByItsReaderMetricsWhateverItsName() {
        server.runningJob(now, 200.0, 4, false).secondKafkaSource(150.0, 4, 2);
        FlinkObservation.Job job = client.observe(server.url(), "device-events").job();
        assertThat(job.sources()).extracting(FlinkObservation.Source::vertexId).containsExactly("v1", "v3");
        assertThat(job.sourceRecordsOutPerSecond()).isEqualTo(350.0);
        assertThat(job.assignedSplits()).as("4 + 2 readers x 4 partitions").isEqualTo(12);
        assertThat(job.partitionsRead()).isEqualTo(TestUtils.partitions("device-events", 0, 1, 2, 3));
    }

    @Test
    void aSourceReadingAnotherTopicIsNotCounted() {
        server.runningJob(now, 200.0, 4, false).secondKafkaSource(150.0, 4, 2);
        FlinkObservation.Job job =
                client.observe(server.url(), "other-topic").job().reading(Set.of("other-topic"));
        assertThat(job.sources()).isEmpty();
        assertThat(job.sourceRecordsOutPerSecond()).isNull();
    }

    @Test
    void aNamedTopicMakesTheOneSourceVertexOfAnUnknownReaderItsReader() {
        server.runningJob(now, 1, 1, false).unrecognisedSource(80.0, false);
        FlinkObservation.Job named = client.observe(server.url(), "line-events").job();
        assertThat(named.sources()).hasSize(1);
        FlinkObservation.Source s = named.sources().get(0);
        assertThat(s.reader()).isEqualTo(KafkaReader.SOURCE_VERTEX);
        assertThat(s.topics()).containsExactly("line-events");
        assertThat(s.vertexId()).isEqualTo("v1");
        assertThat(s.recordsOutPerSecond())
                .as("the source operator's rate, not the chain's")
                .isEqualTo(80.0);
        assertThat(named.assignedSplits())
                .as("nothing to count for an unknown reader")
                .isZero();

        assertThat(client.observe(server.url(), null).job().sources())
                .as("without a topic named, nothing is taken on trust")
                .isEmpty();
    }

    @Test
    void aNamedTopicWithSeveralSourceVerticesTakesNoneOfThem() {
        server.runningJob(now, 1, 1, false).unrecognisedSource(80.0, true);
        assertThat(client.observe(server.url(), "line-events").job().sources()).isEmpty();
    }

    @Test
    void aRecognisedReaderOfTheNamedTopicIsNotDoubledByTheSourceVertex() {
        server.runningJob(now, 200.0, 4, false);
        server.on(
                "/jobs/j1",
                "{\"jid\":\"j1\",\"name\":\"lineflow\",\"state\":\"RUNNING\",\"vertices\":["
                        + "{\"id\":\"v1\",\"name\":\"Source: kafka-source -> parse-events\",\"parallelism\":2},"
                        + "{\"id\":\"v2\",\"name\":\"device-windows -> Sink: postgres-sink\",\"parallelism\":2}],"
                        + "\"plan\":{\"nodes\":[{\"id\":\"v1\"},{\"id\":\"v2\",\"inputs\":[{\"id\":\"v1\"}]}]}}");
        assertThat(client.observe(server.url(), "device-events").job().sources())
                .extracting(FlinkObservation.Source::reader)
                .containsExactly(KafkaReader.KAFKA_SOURCE);
    }

    @Test
    void checkpointConfig404MeansCheckpointingDisabled() {
        server.runningJob(now, 1, 1, false).remove("/jobs/j1/checkpoints/config");
        assertThat(client.observe(server.url(), "device-events")
                        .job()
                        .checkpoints()
                        .enabled())
                .isFalse();
    }

    @Test
    void infiniteIntervalMeansCheckpointingDisabled() {
        server.runningJob(now, 1, 1, false)
                .on("/jobs/j1/checkpoints/config", "{\"interval\":9223372036854775807,\"timeout\":600000}");
        assertThat(client.observe(server.url(), "device-events")
                        .job()
                        .checkpoints()
                        .enabled())
                .isFalse();
    }

    @Test
    void theJobNotYetRunningIsObservedRatherThanTheCancelledOneListedBeforeIt() {
        server.runningJob(now, 1, 1, false)
                .on(
                        "/jobs/overview",
                        "{\"jobs\":[{\"jid\":\"j0\",\"name\":\"old\",\"state\":\"CANCELED\",\"start-time\":"
                                + (now - 60_000)
                                + "},{\"jid\":\"j1\",\"name\":\"lineflow\",\"state\":\"INITIALIZING\",\"start-time\":"
                                + (now - 1_000) + "}]}");
        FlinkObservation o = client.observe(server.url(), "device-events");
        assertThat(o.error()).isNull();
        assertThat(o.job().id()).isEqualTo("j1");
        assertThat(o.job().state()).isEqualTo(org.apache.flink.api.common.JobStatus.INITIALIZING);
    }

    @Test
    void noJobIsReportedAsNoJobNotAsAnError() {
        server.on("/jobs/overview", "{\"jobs\":[]}");
        FlinkObservation o = client.observe(server.url(), "device-events");
        assertThat(o.ok()).isTrue();
        assertThat(o.job()).isNull();
    }

    @Test
    void unreachableEndpointBecomesAnErrorNotAnException() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        FlinkObservation o = client.observe("http://127.0.0.1:" + port, "device-events");
        assertThat(o.ok()).isFalse();
        assertThat(o.error()).contains("Connect");
    }

    /**
     * The client gives up on its own timeout: the server holds every answer until the test ends,
     * so an observation that returns at all, saying "timed out", with no answer sent, was cut
     * short by the client (no stopwatch, which a busy machine could overrun).
     */
    @Test
    void slowEndpointTimesOut() {
        server.runningJob(now, 1, 1, false);
        server.hold();
        FlinkObservation o = client.observe(server.url(), "device-events");
        assertThat(o.ok()).isFalse();
        assertThat(o.error()).containsIgnoringCase("timed out");
        assertThat(server.answered())
                .as("answers the server had sent when the observation returned")
                .isZero();
    }
}
