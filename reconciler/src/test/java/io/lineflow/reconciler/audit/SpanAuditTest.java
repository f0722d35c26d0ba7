package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.checks.AuditCheck;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.AuditReport.Reason;
import io.lineflow.reconciler.model.AuditStatus;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable.Difference;
import io.lineflow.testing.Await;
import io.lineflow.testing.TestServices;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bounded audit against a real topic and a real table: it reads the last 30 minutes' windows
 * (from offsets found by time, an hour earlier for max-future), finds a correct table exact, and
 * reports a row changed by hand, a deleted row, an extra row and doubled counts; the windows it
 * cannot judge (not final yet, a stop carried from before the read, a read cut by retention or a
 * group without offsets) are reported with their reason and never as mismatches.
 *
 * <p>The correct table is the recount of the whole topic (the job's model, tied to the job by
 * {@code RecountDifferentialTest}); the audit sees only its span of it.
 */
class SpanAuditTest {
    private static final Path WORK = Path.of("target", "it", "span-audit");
    private static final String TOPIC = "span-events";
    private static final String GROUP = "lineflow";
    private static final Instant NOW = Instant.parse("2026-11-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final Rules RULES = Rules.defaults();
    private static final List<WindowRecount.Input> SENT = new ArrayList<>();

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    /** 10:00–11:55:30: "old" stops at 10:12 and falls silent; d1 stops 11:41–11:43; d2 only produces. */
    @BeforeAll
    static void start() throws Exception {
        SERVICES.kafka().createTopic(TOPIC, 1);
        SERVICES.kafka().createTopic("cut-events", 1);
        try (Connection c = SERVICES.postgres().connect()) {
            TestUtils.jobSchema(c); // the job's own schema
        }
        List<String[]> events = new ArrayList<>();
        for (int m = 0; m <= 20; m++) {
            events.add(new String[] {"old", m == 12 ? "DOWNTIME_START" : "PIECE_PRODUCED", at(10, m, 0)});
        }
        for (int m = 40; m <= 115; m++) {
            String type = m == 101 ? "DOWNTIME_START" : m == 103 ? "DOWNTIME_END" : "PIECE_PRODUCED";
            events.add(new String[] {"d1", type, at(10, m, 0)});
            events.add(new String[] {"d2", "PIECE_PRODUCED", at(10, m, 20)});
        }
        events.add(new String[] {"d2", "PIECE_PRODUCED", at(11, 55, 30)});
        events.sort((a, b) -> a[2].compareTo(b[2]));
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            int n = 0;
            for (String[] e : events) {
                byte[] key = e[0].getBytes(StandardCharsets.UTF_8);
                byte[] value = String.format(
                                "{\"eventId\":\"e%d\",\"deviceId\":\"%s\",\"lineId\":\"L1\",\"type\":\"%s\",\"ts\":\"%s\",\"count\":2}",
                                n++, e[0], e[1], e[2])
                        .getBytes(StandardCharsets.UTF_8);
                // The Kafka timestamp is when the record was produced: its event time here.
                long ts = Instant.parse(e[2]).toEpochMilli();
                p.send(new ProducerRecord<>(TOPIC, 0, ts, key, value));
                p.send(new ProducerRecord<>("cut-events", 0, ts, key, value));
                SENT.add(new WindowRecount.Input(0, ts, key, value));
            }
        }
        // The job's checkpoint: its group has committed the end of the topic.
        commit(TOPIC, events.size());
        commit("cut-events", events.size());
        // Retention took the first 30 records of the second topic (the read must start at 10:30).
        try (Admin admin =
                Admin.create(Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers()))) {
            admin.deleteRecords(Map.of(new TopicPartition("cut-events", 0), RecordsToDelete.beforeOffset(30)))
                    .all()
                    .get();
        }
    }

    private static void commit(String topic, long offset) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers(), "group.id", GROUP),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(offset)));
        }
    }

    private static String at(int hour, int minute, int second) {
        return Instant.parse("2026-11-01T00:00:00Z")
                .plusSeconds(hour * 3600L + minute * 60L + second)
                .toString();
    }

    /** What the job writes for that input: the whole topic's recount of its closed windows. */
    @BeforeEach
    void correctTable() throws Exception {
        sql("TRUNCATE device_window_stats");
        write(WindowRecount.recount(SENT, RULES).rows().values(), false);
    }

    /** Upserts rows; {@code additive} adds to a row already there, as a sink that re-adds a replay. */
    private static void write(Iterable<Row> rows, boolean additive) throws Exception {
        try (Connection c = SERVICES.postgres().connect()) {
            TableRows.write(c, rows, RULES.windowMillis(), additive ? TableRows.ADDING : TableRows.REPLACING);
        }
    }

    private static void sql(String... statements) throws Exception {
        try (Connection c = SERVICES.postgres().connect();
                Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    private static Audit.Settings settings(String topic, String group) {
        return new Audit.Settings(
                SERVICES.kafka().bootstrapServers(),
                Map.of(),
                topic,
                group,
                Duration.ofMinutes(30),
                RULES,
                1_000_000,
                SERVICES.postgres().jdbcUrl(),
                null,
                null,
                Duration.ofSeconds(30));
    }

    private static AuditReport audit() throws Exception {
        AuditReport r = Audit.run(settings(TOPIC, GROUP), CLOCK);
        r.lines().forEach(System.out::println);
        return r;
    }

    private static String key(String device, String start) {
        return device + "@" + Instant.parse("2026-11-01T" + start + ":00Z");
    }

    @Test
    void aCorrectTableHasNoMismatchAndTheSpansEdgesAreNotJudged() throws Exception {
        AuditReport r = audit();

        assertThat(r.differences()).isEmpty();
        // The read began an hour (max-future) before 11:30, not at the topic's beginning.
        assertThat(r.recordsRead()).isLessThan(SENT.size()).isGreaterThan(100);
        // d1 and d2 at 11:30, 11:35, 11:40, 11:45; 11:50 is closed but still takes late events.
        assertThat(r.matched()).isEqualTo(8);
        assertThat(r.unjudged())
                .containsEntry(key("d1", "11:50"), new AuditReport.Unjudged(Reason.OPEN, null))
                .containsEntry(key("d2", "11:50"), new AuditReport.Unjudged(Reason.OPEN, null))
                // "old" stopped at 10:12, before the read: its silent rows cannot be judged.
                .containsEntry(key("old", "11:30"), new AuditReport.Unjudged(Reason.CARRY, null))
                .containsEntry(key("old", "11:45"), new AuditReport.Unjudged(Reason.CARRY, null))
                .doesNotContainKey(key("d1", "11:45"));
        assertThat(r.unjudged(Reason.OPEN)).isEqualTo(3);
        assertThat(r.unjudged(Reason.CARRY)).isEqualTo(4);
        // Downtime is judged from d1's stop on (11:45); before it, and for d2 which never stops, not.
        assertThat(r.downtimeNotJudged()).isEqualTo(7);
        assertThat(r.from()).isEqualTo(Instant.parse("2026-11-01T11:30:00Z").toEpochMilli());
    }

    @Test
    void aRowAlteredByHandIsWrong() throws Exception {
        sql("UPDATE device_window_stats SET pieces_produced = 7"
                + " WHERE device_id = 'd1' AND window_start = '2026-11-01T11:35:00Z'");
        AuditReport r = audit();
        assertThat(r.differences())
                .extracting(Difference::toString)
                .containsExactly("WRONG " + key("d1", "11:35") + " pieces_produced: expected 10, got 7");
        assertThat(r.rows(Difference.Kind.WRONG)).isEqualTo(1);
        assertThat(r.matched()).isEqualTo(7);
    }

    @Test
    void aDeletedRowIsMissing() throws Exception {
        sql("DELETE FROM device_window_stats WHERE device_id = 'd2' AND window_start = '2026-11-01T11:40:00Z'");
        AuditReport r = audit();
        assertThat(r.differences())
                .extracting(Difference::toString)
                .singleElement()
                .asString()
                .startsWith("MISSING " + key("d2", "11:40"));
    }

    @Test
    void anExtraRowIsReportedButASilentOneOfAnUnknownStopIsNotJudged() throws Exception {
        sql(
                "INSERT INTO device_window_stats (device_id, window_start, window_end, line_id, pieces_produced,"
                        + " downtime_count, downtime_seconds, events_seen) VALUES"
                        + " ('ghost', '2026-11-01T11:35:00Z', '2026-11-01T11:40:00Z', 'L1', 4, 0, 0, 2)",
                "INSERT INTO device_window_stats (device_id, window_start, window_end, line_id, pieces_produced,"
                        + " downtime_count, downtime_seconds, events_seen) VALUES"
                        + " ('quiet', '2026-11-01T11:35:00Z', '2026-11-01T11:40:00Z', 'L1', 0, 0, 300, 0)");
        AuditReport r = audit();
        assertThat(r.differences())
                .extracting(Difference::toString)
                .singleElement()
                .asString()
                .startsWith("EXTRA " + key("ghost", "11:35"));
        assertThat(r.unjudged()).containsEntry(key("quiet", "11:35"), new AuditReport.Unjudged(Reason.CARRY, null));
    }

    @Test
    void aSinkThatAddsAReplayIsCaught() throws Exception {
        // A restore from 11:35 replays the records since; an additive upsert adds them again.
        List<Row> replayed = WindowRecount.recount(SENT, RULES).rows().values().stream()
                .filter(row -> row.windowStart()
                        >= Instant.parse("2026-11-01T11:35:00Z").toEpochMilli())
                .toList();
        write(replayed, true);
        AuditReport r = audit();
        // d1 and d2 at 11:35, 11:40, 11:45 doubled (11:50 is not final: not judged); 11:30 exact.
        assertThat(r.rows(Difference.Kind.WRONG)).isEqualTo(6);
        assertThat(r.differences())
                .extracting(Difference::toString)
                .contains("WRONG " + key("d2", "11:40") + " pieces_produced: expected 10, got 20")
                .contains("WRONG " + key("d2", "11:40") + " events_seen: expected 5, got 10");
        assertThat(r.matched()).isEqualTo(2);
    }

    @Test
    void aReadCutByRetentionJudgesNothing() throws Exception {
        AuditReport r = Audit.run(settings("cut-events", GROUP), CLOCK);
        r.lines().forEach(System.out::println);
        assertThat(r.differences()).isEmpty();
        assertThat(r.matched()).isZero();
        assertThat(r.unjudged()).isNotEmpty().allSatisfy((k, u) -> {
            assertThat(u.reason()).isEqualTo(Reason.READ);
            assertThat(u.detail()).contains("retention").contains("partition 0");
        });
    }

    @Test
    void aGroupWithoutOffsetsJudgesNothing() throws Exception {
        AuditReport r = Audit.run(settings(TOPIC, "never-committed"), CLOCK);
        assertThat(r.differences()).isEmpty();
        assertThat(r.unjudged())
                .isNotEmpty()
                .allSatisfy((k, u) -> assertThat(u.detail()).contains("no committed offset on partition 0"));
    }

    /**
     * The loop in the reconciler: a row altered by hand while it runs is reported within one audit
     * period, as metrics and as an AUDIT_MISMATCH finding for the audited deployment only. The
     * deployment's topic and group are its job's settings (its ConfigMap); a deployment that does not
     * run lineflow's job is not audited.
     */
    @Test
    void theLoopReportsARowAlteredByHandWithinOnePeriod() throws Exception {
        Configuration conf = ReconcilerOptions.fromMap(Map.of(
                "audit.jdbc-url",
                SERVICES.postgres().jdbcUrl(),
                "kafka.bootstrap-servers",
                SERVICES.kafka().bootstrapServers(),
                "audit.period",
                "10 s",
                "audit.span",
                "30 min"));
        Metrics metrics = new Metrics(conf, CLOCK);
        Duration period = conf.get(ReconcilerOptions.AUDIT_PERIOD);
        String settings = "lineflow.kafka.bootstrap-servers=" + SERVICES.kafka().bootstrapServers() + "\n"
                + "lineflow.kafka.topic=" + TOPIC + "\nlineflow.kafka.group-id=" + GROUP + "\n"
                + "lineflow.jdbc.url=" + SERVICES.postgres().jdbcUrl() + "\n";
        JobSettings.ConfigMaps configMaps =
                (ns, name) -> name.equals("lineflow-config") ? Map.of("lineflow.properties", settings) : null;
        FlinkDeployment other = TestUtils.flinkDeployment("lineflow-ns", "another");
        other.getSpec().getJob().setEntryClass("com.example.OtherJob");
        try (AuditLoop loop = new AuditLoop(conf, null, configMaps, metrics, CLOCK)) {
            loop.watch(List.of(TestUtils.lineflowDeployment("lineflow-ns", "lineflow", "lineflow-config"), other));
            loop.start();
            Await.until("a first audit", Duration.ofSeconds(60), e -> false, () -> latest(loop) != null);
            assertThat(latest(loop).clean()).isTrue();
            String labels = "namespace=\"lineflow-ns\",deployment=\"lineflow\"";
            assertThat(metrics.render())
                    .contains("lineflow_audit_rows{" + labels + ",result=\"matched\"} 8")
                    .contains("lineflow_audit_rows{" + labels + ",result=\"wrong\"} 0")
                    .contains("lineflow_audit_runs_total{" + labels + ",outcome=\"completed\"}");
            assertThat(audited(loop, "lineflow").findings()).isEmpty();

            AuditReport before = latest(loop);
            sql("UPDATE device_window_stats SET events_seen = 99"
                    + " WHERE device_id = 'd2' AND window_start = '2026-11-01T11:30:00Z'");
            long altered = System.nanoTime();
            // Within one period after the audit under way when the row changed ends.
            Await.until(
                    "the audit to report the altered row",
                    period.multipliedBy(2).plus(before.took().multipliedBy(2)).plusSeconds(10),
                    e -> false,
                    () -> latest(loop) != before && !latest(loop).clean());
            System.out.printf(
                    "SpanAuditTest: altered row reported %d ms after the change (period %d s)%n",
                    (System.nanoTime() - altered) / 1_000_000, period.toSeconds());
            assertThat(metrics.render()).contains("lineflow_audit_rows{" + labels + ",result=\"wrong\"} 1");
            assertThat(audited(loop, "lineflow").find(FindingCode.AUDIT_MISMATCH))
                    .hasValueSatisfying(f -> assertThat(f.message()).contains("d2@2026-11-01T11:30:00Z"));
            assertThat(loop.latestFor(new DeploymentKey("lineflow-ns", "another")))
                    .isNull();
            assertThat(audited(loop, "another").findings()).isEmpty();
            assertThat(metrics.render()).doesNotContain("deployment=\"another\"");
        }
    }

    private static AuditReport latest(AuditLoop loop) {
        AuditStatus s = loop.latestFor(new DeploymentKey("lineflow-ns", "lineflow"));
        return s == null ? null : s.latest();
    }

    /** What the reconciler's pass judges of the deployment {@code name}: the loop's status of it, by AuditCheck. */
    private static HealthResult audited(AuditLoop loop, String name) {
        Observation o = new Observation(CLOCK.instant(), null, null, null, null, List.of())
                .withAudit(loop.latestFor(new DeploymentKey("lineflow-ns", name)));
        return new AuditCheck().evaluate(o, ReconcilerOptions.fromMap(Map.of()), CLOCK);
    }
}
