package io.lineflow.job;

import static io.lineflow.testing.TestEvents.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.rules.Windows;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;
import io.lineflow.testing.HostileRecords;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The whole job on real Kafka, PostgreSQL and a MiniCluster, fed good input with generated hostile
 * records ({@link HostileRecords}) mixed in: the job never restarts, every produced record is
 * either counted or kept with its reason, the parser's reasons arrive in the table one for one,
 * nothing reaches the sink that PostgreSQL refuses, and the good devices' windows stay exact.
 * Seed and count: {@code -Dlineflow.hostile.seed}, {@code -Dlineflow.hostile.records}.
 */
class HostileInputIT {
    private static final Path WORK = Path.of("target", "it", "hostile-input");
    private static final long WINDOW = Duration.ofMinutes(5).toMillis();
    private static final int PARTITIONS = 4;
    private static final long SEED = Long.getLong("lineflow.hostile.seed", 13L);
    private static final int HOSTILE = Integer.getInteger("lineflow.hostile.records", 3000);

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    @RegisterExtension
    static final MiniClusterExtension FLINK = TestClusters.twoTaskManagers(3);

    @BeforeAll
    static void createSchema() {
        Schema.migrate(jobConfig("unused"));
    }

    private static Configuration jobConfig(String topic) {
        return JobConfig.builder()
                .kafka(SERVICES.kafka().bootstrapServers(), topic, "hostile-input")
                .jdbc(SERVICES.postgres().jdbcUrl(), SERVICES.postgres().user())
                .set(LineflowOptions.SINK_BATCH_INTERVAL, Duration.ofMillis(200))
                .checkpoints(Duration.ofMillis(500), WORK.resolve("checkpoints"))
                .load();
    }

    @Test
    void hostileRecordsNeverRestartTheJobAndEveryRecordIsCountedOrKept(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        String topic = "hostile";
        SERVICES.kafka().createTopic(topic, PARTITIONS);
        Configuration conf = jobConfig(topic);
        DeterministicInput good = DeterministicInput.generate(6, 4, 10, WINDOW, T0, PARTITIONS);
        good.produce(SERVICES.kafka().bootstrapServers(), topic, 0, good.records.size());

        // Boundary times are drawn around "now" minus two hours, so that none flips between
        // accepted and FUTURE_TIMESTAMP while the test runs.
        long now = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
        DeviceEventJson json = LineflowSettings.rules(conf).parser();
        long earliest = java.time.Instant.parse(conf.get(LineflowOptions.EARLIEST_EVENT_TIME))
                .toEpochMilli();
        int maxBytes = (int) conf.get(LineflowOptions.MAX_EVENT_SIZE).getBytes();
        Random random = new Random(SEED);
        List<HostileRecords.Record> hostile = new ArrayList<>();
        Map<RejectReason, Long> expected = new EnumMap<>(good.rejections);
        List<String> parserThrew = new ArrayList<>();
        expected.remove(RejectReason.DUPLICATE);
        for (int i = 0; i < HOSTILE; i++) {
            HostileRecords.Record r = HostileRecords.next(
                    random, now, earliest, conf.get(LineflowOptions.MAX_FUTURE).toMillis(), maxBytes, "hostile-");
            hostile.add(r);
            try {
                ParsedRecord p = json.parse(r.key, r.value, topic, 0, i, System.currentTimeMillis());
                if (!p.isAccepted()) {
                    expected.merge(p.rejected.reason, 1L, Long::sum);
                }
            } catch (RuntimeException e) {
                parserThrew.add(r + ": " + e); // asserted after the job ran, to see what the job did
            }
        }
        Map<TopicPartition, Long> ends = good.endOffsets(topic);
        produce(topic, hostile, ends);

        JobClient job = TestJobs.startBounded(conf, OffsetsInitializer.offsets(ends));
        JobID id = job.getJobID();
        job.getJobExecutionResult().get();

        String seed = "seed " + SEED + ", " + HOSTILE + " hostile records";
        assertThat(cluster.getArchivedExecutionGraph(id).get().getStatusTimestamp(JobStatus.RESTARTING))
                .as("numRestarts: the job never restarted (%s)", seed)
                .isZero();
        Map<String, Row> table;
        Map<RejectReason, Long> rejected;
        try (Connection c = SERVICES.postgres().connect()) {
            table = WindowTable.read(c);
            rejected = WindowTable.rejections(c);
        }
        long produced = good.total() + HOSTILE;
        long counted = table.values().stream().mapToLong(r -> r.events()).sum();
        long kept = rejected.values().stream().mapToLong(Long::longValue).sum();
        assertThat(counted + kept)
                .as("produced = counted + rejected (%s)", seed)
                .isEqualTo(produced);
        Map<RejectReason, Long> parserReasons = new EnumMap<>(rejected);
        parserReasons.remove(RejectReason.DUPLICATE);
        parserReasons.remove(RejectReason.LATE);
        assertThat(parserReasons).as("rejected by reason (%s)", seed).isEqualTo(expected);
        assertThat(rejected).doesNotContainKey(RejectReason.REFUSED_BY_DATABASE);

        Map<String, Row> goodRows = table.entrySet().stream()
                .filter(e -> e.getKey().startsWith("press-"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertThat(WindowTable.diff(ExpectedWindows.toEnd(good, LineflowSettings.rules(conf)), goodRows))
                .isEmpty();
        assertThat(table.size()).as("hostile devices were counted too").isGreaterThan(goodRows.size());
        // A generated DOWNTIME_START at the earliest accepted time (2000-01-01) followed by events of
        // today: the silent stopped windows in between are written only for the silent fill, not
        // the ~2.7 million windows since.
        long maxSilent = Windows.maxSilentWindows(
                WINDOW, conf.get(LineflowOptions.DOWNTIME_SILENT_FILL).toMillis());
        Map<String, long[]> byDevice = new TreeMap<>(); // device -> {rows with events, silent rows}
        table.values().forEach(r -> byDevice.computeIfAbsent(r.deviceId(), d -> new long[2])[r.events() > 0 ? 0 : 1]++);
        assertThat(byDevice)
                .as("silent rows per device within the silent fill after each window with events (%s)", seed)
                .allSatisfy((device, n) -> assertThat(n[1]).isLessThanOrEqualTo(maxSilent * n[0]));
        assertThat(parserThrew).as("records the parser threw on").isEmpty();
    }

    /** Produces {@code records} round-robin over the partitions, after the good input; counts them into {@code ends}. */
    private static void produce(String topic, List<HostileRecords.Record> records, Map<TopicPartition, Long> ends)
            throws Exception {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SERVICES.kafka().bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                1,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                1 << 20);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < records.size(); i++) {
                int partition = i % PARTITIONS;
                sent.add(producer.send(
                        new ProducerRecord<>(topic, partition, records.get(i).key, records.get(i).value)));
                ends.merge(new TopicPartition(topic, partition), 1L, Long::sum);
            }
            producer.flush();
            for (java.util.concurrent.Future<?> f : sent) {
                f.get();
            }
        }
    }
}
