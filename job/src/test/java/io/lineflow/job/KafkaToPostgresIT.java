package io.lineflow.job;

import static io.lineflow.testing.TestEvents.T0;
import static io.lineflow.testing.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.rules.Rules;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;
import io.lineflow.testing.TestClusters;
import io.lineflow.testing.TestServices;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The whole job on real parts: in-JVM Kafka, embedded PostgreSQL, a Flink MiniCluster. */
class KafkaToPostgresIT {
    private static final Path WORK = Path.of("target", "it", "kafka-to-postgres");
    private static final long WINDOW = Duration.ofMinutes(5).toMillis();
    private static final int PARTITIONS = 4;

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK).emptyingTablesBeforeEach();

    @RegisterExtension
    static final MiniClusterExtension FLINK = TestClusters.twoTaskManagers(5);

    @BeforeAll
    static void createSchema() {
        Schema.migrate(jobConfig("unused", "unused"));
    }

    /** The rules of {@link #jobConfig}: the job's defaults. */
    private static Rules rules() {
        return LineflowSettings.rules(jobConfig("unused", "unused"));
    }

    private static Configuration jobConfig(String topic, String group, String... extra) {
        JobConfig.Builder b = JobConfig.builder()
                .kafka(SERVICES.kafka().bootstrapServers(), topic, group)
                .jdbc(SERVICES.postgres().jdbcUrl(), SERVICES.postgres().user())
                .set(LineflowOptions.SINK_BATCH_INTERVAL, Duration.ofMillis(200))
                .checkpoints(Duration.ofMillis(500), WORK.resolve("checkpoints"));
        for (int i = 0; i < extra.length; i += 2) {
            b.set(extra[i], extra[i + 1]);
        }
        return b.load();
    }

    private static Map<String, Row> table() throws Exception {
        try (Connection c = SERVICES.postgres().connect()) {
            return WindowTable.read(c);
        }
    }

    private static Map<RejectReason, Long> rejections() throws Exception {
        try (Connection c = SERVICES.postgres().connect()) {
            return WindowTable.rejections(c);
        }
    }

    @Test
    void everyWindowIsExact_aReplayLeavesTheSameTable_anAdditiveSinkIsCaught() throws Exception {
        String topic = "exact";
        SERVICES.kafka().createTopic(topic, PARTITIONS);
        DeterministicInput input = DeterministicInput.generate(8, 6, 20, WINDOW, T0, PARTITIONS);
        input.produce(SERVICES.kafka().bootstrapServers(), topic, 0, input.records.size());
        Map<String, Row> expected = ExpectedWindows.toEnd(input, rules());

        TestJobs.startBounded(jobConfig(topic, "first"), OffsetsInitializer.latest())
                .getJobExecutionResult()
                .get();
        Map<String, Row> first = table();
        assertThat(WindowTable.diff(expected, first)).isEmpty();
        assertThat(first).hasSize(8 * 6);
        assertThat(first.values()).allSatisfy(r -> assertThat(r.pieces()).isEqualTo(20));
        assertThat(first.values())
                .anySatisfy(r -> assertThat(r.downtimeMillis()).isPositive());

        // Accounting: every produced record is either counted or kept with its reason.
        Map<RejectReason, Long> rejected = rejections();
        assertThat(rejected).isEqualTo(input.rejections);
        long counted = first.values().stream().mapToLong(r -> r.events()).sum();
        assertThat(counted
                        + rejected.values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(input.total());

        // The same input again, from the start, under another group: the table does not change.
        TestJobs.startBounded(jobConfig(topic, "replay"), OffsetsInitializer.latest())
                .getJobExecutionResult()
                .get();
        assertThat(WindowTable.diff(first, table())).isEmpty();
        assertThat(rejections()).isEqualTo(input.rejections);

        // Negative control: an additive sink on the same replay must show up as wrong cells.
        TestJobs.startBounded(
                        jobConfig(topic, "additive", "lineflow.sink.mode", "ADDITIVE"), OffsetsInitializer.latest())
                .getJobExecutionResult()
                .get();
        assertThat(WindowTable.diff(expected, table()))
                .hasSizeGreaterThanOrEqualTo(8 * 6)
                .anySatisfy(d -> assertThat(d)
                        .extracting(
                                WindowTable.Difference::column,
                                WindowTable.Difference::expected,
                                WindowTable.Difference::actual)
                        .containsExactly("pieces_produced", 20L, 40L));
    }

    @Test
    void staysExactThroughTheLossOfATaskManagerMidStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String topic = "tm-loss";
        SERVICES.kafka().createTopic(topic, PARTITIONS);
        DeterministicInput input = DeterministicInput.generate(8, 8, 20, WINDOW, T0, PARTITIONS);
        int half = input.records.size() / 2;
        input.produce(SERVICES.kafka().bootstrapServers(), topic, 0, half);

        JobClient job =
                TestJobs.startBounded(jobConfig(topic, "tm-loss"), OffsetsInitializer.offsets(input.endOffsets(topic)));
        JobID id = job.getJobID();
        awaitRowsAndCheckpoint(cluster, id);

        // One slot per TaskManager and parallelism 2: the lost TaskManager ran part of the job.
        // Its replacement starts as a pod would, and the job restores its last checkpoint.
        cluster.terminateTaskManager(0).get();
        cluster.startTaskManager();
        input.produce(SERVICES.kafka().bootstrapServers(), topic, half, input.records.size());
        job.getJobExecutionResult().get();

        assertThat(cluster.getArchivedExecutionGraph(id).get().getStatusTimestamp(JobStatus.RESTARTING))
                .as("the job failed over")
                .isPositive();
        assertThat(WindowTable.diff(ExpectedWindows.toEnd(input, rules()), table()))
                .isEmpty();
        assertThat(rejections()).isEqualTo(input.rejections);
    }

    @Test
    void aRowTakesTheLineOfItsLastEventReadAndASilentWindowThatOfTheRowBefore() throws Exception {
        String topic = "line-change";
        SERVICES.kafka().createTopic(topic, 2);
        // press-101 (partition 1) moves from L1 to L2 and stops; it sends nothing in 10:05-10:10;
        // in 10:10-10:15 its L3 event is read before its L2 events, though it is the latest in time.
        // press-102 (partition 0) moves to L4 as it stops and stays silent through two windows.
        // All of it is in Kafka before the job starts: a backlog read at once, so the watermark
        // passes several window ends in one step (and at the end of input, all of them).
        List<DeviceEvent> events = List.of(
                event("a1", "press-101", "L1", EventType.PIECE_PRODUCED, 1),
                event("a2", "press-101", "L2", EventType.PIECE_PRODUCED, 3),
                event("a3", "press-101", "L2", EventType.DOWNTIME_START, 4),
                event("a4", "press-101", "L3", EventType.PIECE_PRODUCED, 14),
                event("a5", "press-101", "L2", EventType.DOWNTIME_END, 12),
                event("a6", "press-101", "L2", EventType.PIECE_PRODUCED, 13),
                event("b1", "press-102", "L1", EventType.PIECE_PRODUCED, 0.5),
                event("b2", "press-102", "L4", EventType.DOWNTIME_START, 2),
                event("b3", "press-102", "L4", EventType.DOWNTIME_END, 17));
        DeterministicInput input = DeterministicInput.of(events, WINDOW, 2);
        input.produce(SERVICES.kafka().bootstrapServers(), topic, 0, input.records.size());

        TestJobs.startBounded(jobConfig(topic, "line-change"), OffsetsInitializer.latest())
                .getJobExecutionResult()
                .get();
        Map<String, Row> table = table();

        assertThat(WindowTable.diff(ExpectedWindows.toEnd(input, rules()), table))
                .isEmpty();
        // The same figures spelt out, so that they do not rest on the oracle alone.
        Map<String, String> lines = new TreeMap<>();
        Map<String, Long> downSeconds = new TreeMap<>();
        table.forEach((key, row) -> {
            lines.put(key, row.lineId());
            downSeconds.put(key, row.downtimeMillis() / 1000);
        });
        assertThat(lines)
                .isEqualTo(Map.of(
                        WindowTable.key("press-101", t(0)), "L2",
                        WindowTable.key("press-101", t(5)), "L2",
                        WindowTable.key("press-101", t(10)), "L2",
                        WindowTable.key("press-102", t(0)), "L4",
                        WindowTable.key("press-102", t(5)), "L4",
                        WindowTable.key("press-102", t(10)), "L4",
                        WindowTable.key("press-102", t(15)), "L4"));
        assertThat(downSeconds)
                .isEqualTo(Map.of(
                        WindowTable.key("press-101", t(0)), 60L,
                        WindowTable.key("press-101", t(5)), 300L,
                        WindowTable.key("press-101", t(10)), 120L,
                        WindowTable.key("press-102", t(0)), 180L,
                        WindowTable.key("press-102", t(5)), 300L,
                        WindowTable.key("press-102", t(10)), 300L,
                        WindowTable.key("press-102", t(15)), 120L));
    }

    private static DeviceEvent event(String id, String device, String line, EventType type, double minute) {
        return new DeviceEvent(id, device, line, type, t(minute), type == EventType.PIECE_PRODUCED ? 1 : 0, null);
    }

    private static void awaitRowsAndCheckpoint(MiniCluster cluster, JobID id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            long checkpoints = cluster.getExecutionGraph(id)
                    .get()
                    .getCheckpointStatsSnapshot()
                    .getCounts()
                    .getNumberOfCompletedCheckpoints();
            if (checkpoints >= 2 && !table().isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no rows and completed checkpoints within 2 minutes");
    }
}
