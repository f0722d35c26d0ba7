package io.lineflow.job;

import static io.lineflow.testing.TestEvents.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.rules.Windows;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;
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
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Windows whose end has passed are written when the input goes quiet, also after a restore that
 * brings no new input; and a paused replay of old data still counts every event exactly.
 */
class QuietWindowsIT {
    private static final Path WORK = Path.of("target", "it", "quiet-windows");
    private static final long WINDOW = Duration.ofMinutes(5).toMillis();
    private static final int PARTITIONS = 4;

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK).emptyingTablesBeforeEach();

    @RegisterExtension
    static final MiniClusterExtension FLINK = TestClusters.twoTaskManagers(3);

    @BeforeAll
    static void createSchema() {
        Schema.migrate(jobConfig("unused", "unused", "1 s"));
    }

    private static Configuration jobConfig(String topic, String group, String idleEmit) {
        return JobConfig.builder()
                .kafka(SERVICES.kafka().bootstrapServers(), topic, group)
                .jdbc(SERVICES.postgres().jdbcUrl(), SERVICES.postgres().user())
                .set(LineflowOptions.SINK_BATCH_INTERVAL, Duration.ofMillis(200))
                .set(LineflowOptions.IDLE_EMIT.key(), idleEmit)
                .checkpoints(Duration.ofMillis(300), WORK.resolve("checkpoints"))
                .load();
    }

    private static Map<String, Row> table() throws Exception {
        try (Connection c = SERVICES.postgres().connect()) {
            return WindowTable.read(c);
        }
    }

    /** The key of the window of each device's latest counted event in {@code records[0, to)}. */
    private static Set<String> lastWindows(DeterministicInput input, int to, Configuration conf) {
        DeviceEventJson json = LineflowSettings.rules(conf).parser();
        Map<String, Long> latest = new HashMap<>();
        for (DeterministicInput.Record r : input.records.subList(0, to)) {
            ParsedRecord p =
                    json.parse(r.key.getBytes(StandardCharsets.UTF_8), r.value, "t", 0, 0, System.currentTimeMillis());
            if (p.isAccepted()) {
                latest.merge(p.event.deviceId, p.event.ts, Math::max);
            }
        }
        return latest.entrySet().stream()
                .map(e -> WindowTable.key(e.getKey(), Windows.start(e.getValue(), WINDOW)))
                .collect(Collectors.toSet());
    }

    private static long awaitRows(Set<String> keys, Duration within) throws Exception {
        long started = System.nanoTime();
        long deadline = started + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (table().keySet().containsAll(keys)) {
                return Duration.ofNanos(System.nanoTime() - started).toMillis();
            }
            Thread.sleep(100);
        }
        Set<String> missing = new HashSet<>(keys);
        missing.removeAll(table().keySet());
        throw new AssertionError("rows not written within " + within + ": " + missing);
    }

    private static void awaitCommitted(String group, Map<TopicPartition, Long> ends) throws Exception {
        Map<String, Object> props = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SERVICES.kafka().bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (System.nanoTime() < deadline) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get();
                if (ends.entrySet().stream()
                        .allMatch(e -> committed.get(e.getKey()) != null
                                && committed.get(e.getKey()).offset() == e.getValue())) {
                    return;
                }
                Thread.sleep(50);
            }
        }
        throw new AssertionError("the job did not commit the end offsets within 2 minutes");
    }

    @Test
    void afterARestoreWithNoNewInputTheLastWindowsAreWrittenWithinTheIdleEmitTime(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        String topic = "quiet-restore";
        SERVICES.kafka().createTopic(topic, PARTITIONS);
        DeterministicInput input = DeterministicInput.generate(4, 3, 5, WINDOW, T0, PARTITIONS);
        input.produce(SERVICES.kafka().bootstrapServers(), topic, 0, input.records.size());
        // Long enough for the first run to be stopped before its idle checks fire on a loaded
        // machine; the checks are timers in the checkpoint, due 30 s after the last events.
        Configuration conf = jobConfig(topic, "restore", "30 s");
        Set<String> last = lastWindows(input, input.records.size(), conf);

        // Run until a checkpoint holds the whole input (its offsets are committed), then stop,
        // before the idle emission: as a restart during a quiet shift.
        JobClient first = TestJobs.start(conf, LineflowJob.kafkaSource(conf).build(), null);
        awaitCommitted("restore", input.endOffsets(topic));
        first.cancel().get();
        assertThat(table().keySet())
                .as("the first run wrote the last windows before it was stopped: the test needs a longer idle-emit")
                .doesNotContainAnyElementsOf(last);
        CompletedCheckpointStats latest = cluster.getArchivedExecutionGraph(first.getJobID())
                .get()
                .getCheckpointStatsSnapshot()
                .getHistory()
                .getLatestCompletedCheckpoint();

        JobClient second = TestJobs.start(conf, LineflowJob.kafkaSource(conf).build(), latest.getExternalPath());
        // With no new input nothing but the idle checks restored from the checkpoint can write
        // these rows: lost timers leave them unwritten and the wait fails. How long it took is the
        // machine's business (restore plus the 30 s), reported, not asserted.
        long tookMillis = awaitRows(last, Duration.ofSeconds(90));
        second.cancel().get();
        System.out.printf("the last windows were written %d ms after the restore began%n", tookMillis);
        assertThat(WindowTable.diff(ExpectedWindows.toEnd(input, LineflowSettings.rules(conf)), table()))
                .isEmpty();
    }

    @Test
    void aReplayOfOldDataPausedLongerThanTheIdleEmitTimeStaysExact(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        String topic = "quiet-pause";
        SERVICES.kafka().createTopic(topic, PARTITIONS);
        DeterministicInput input = DeterministicInput.generate(4, 6, 10, WINDOW, T0, PARTITIONS);
        int half = input.records.size() / 2;
        input.produce(SERVICES.kafka().bootstrapServers(), topic, 0, half);
        Configuration conf = jobConfig(topic, "pause", "2 s");

        JobClient job = TestJobs.start(
                conf,
                LineflowJob.kafkaSource(conf)
                        .setBounded(OffsetsInitializer.offsets(input.endOffsets(topic)))
                        .build(),
                null);
        JobID id = job.getJobID();
        // The pause: the windows the replay stopped in are written provisionally.
        awaitRows(lastWindows(input, half, conf), Duration.ofSeconds(60));
        input.produce(SERVICES.kafka().bootstrapServers(), topic, half, input.records.size());
        job.getJobExecutionResult().get();

        assertThat(cluster.getArchivedExecutionGraph(id).get().getStatusTimestamp(JobStatus.RESTARTING))
                .as("the job never restarted")
                .isZero();
        assertThat(WindowTable.diff(ExpectedWindows.toEnd(input, LineflowSettings.rules(conf)), table()))
                .isEmpty();
        try (Connection c = SERVICES.postgres().connect()) {
            assertThat(WindowTable.rejections(c)).as("nothing LATE").isEqualTo(input.rejections);
        }
    }
}
