package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.checks.AuditCheck;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.table.WindowTable.Difference;
import io.lineflow.testing.TestServices;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The false alarm of issue 44, shown: a deployment whose job takes late events for 3 minutes (its
 * own {@code lineflow.window.allowed-lateness}) writes correct rows, and the reconciler's loop, which
 * recounts with the default rules (1 minute), reports one of them as WRONG: a CRITICAL
 * AUDIT_MISMATCH. The fix turns this test round.
 */
class DeploymentAuditTest {
    private static final Path WORK = Path.of("target", "it", "deployment-audit");
    private static final Instant NOW = Instant.parse("2026-11-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final String NS = "lines";
    /** Line A's job: 5-min windows that take late events for 3 minutes, not 1. */
    private static final Rules LATE = new Rules(
            Duration.ofMinutes(5).toMillis(),
            Duration.ofMinutes(3).toMillis(),
            Duration.ofSeconds(10).toMillis(),
            Rules.DEFAULT_MAX_BYTES,
            Rules.DEFAULT_MAX_FUTURE.toMillis(),
            Rules.DEFAULT_EARLIEST.toEpochMilli(),
            Rules.DEFAULT_SILENT_FILL.toMillis());

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    @BeforeAll
    static void start() throws Exception {
        SERVICES.kafka().createTopic("line-a-events", 1);
        database("line_a");
        List<WindowRecount.Input> sent = produce("line-a-events");
        write("line_a", sent, LATE);
    }

    /**
     * 10:00–11:55, a piece a minute from d1 and d2, and one late piece of d1's: stamped 11:13 (window
     * 11:10–11:15), sent after 11:17, when the watermark is at 11:16:50: within 3 minutes of lateness,
     * beyond 1.
     */
    static List<WindowRecount.Input> produce(String topic) throws Exception {
        List<String[]> events = new ArrayList<>();
        for (int m = 0; m <= 115; m++) {
            events.add(new String[] {"d1", at(m, 0)});
            events.add(new String[] {"d2", at(m, 20)});
            if (m == 77) {
                events.add(new String[] {"d1", at(73, 30)});
            }
        }
        List<WindowRecount.Input> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long producedAt = Instant.parse(at(0, 0)).toEpochMilli();
            int n = 0;
            for (String[] e : events) {
                byte[] key = e[0].getBytes(StandardCharsets.UTF_8);
                byte[] value = String.format(
                                "{\"eventId\":\"%s-%d\",\"deviceId\":\"%s\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\","
                                        + "\"ts\":\"%s\",\"count\":1}",
                                topic, n++, e[0], e[1])
                        .getBytes(StandardCharsets.UTF_8);
                // Produced in this order, at its event time or just after the one before it.
                producedAt = Math.max(producedAt, Instant.parse(e[1]).toEpochMilli());
                p.send(new ProducerRecord<>(topic, 0, producedAt, key, value));
                sent.add(new WindowRecount.Input(0, producedAt, key, value));
            }
        }
        // The job's checkpoint: its group committed the end of the topic.
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers(), "group.id", "lineflow"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(sent.size())));
        }
        return sent;
    }

    private static String at(int minuteAfterTen, int second) {
        return Instant.parse("2026-11-01T10:00:00Z")
                .plusSeconds(minuteAfterTen * 60L + second)
                .toString();
    }

    /** A database with the job's own schema. */
    static void database(String name) throws Exception {
        try (Connection c = SERVICES.postgres().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        try (Connection c = DriverManager.getConnection(SERVICES.postgres().jdbcUrl(name));
                Statement s = c.createStatement();
                Stream<Path> migrations = Files.list(Path.of("../job/src/main/resources/db/migration"))) {
            for (Path m : migrations.sorted().toList()) {
                s.execute(Files.readString(m));
            }
        }
    }

    /** What the job with {@code rules} writes for that input: the recount with its rules. */
    static void write(String database, List<WindowRecount.Input> sent, Rules rules) throws Exception {
        try (Connection c = DriverManager.getConnection(SERVICES.postgres().jdbcUrl(database))) {
            TableRows.write(
                    c, WindowRecount.recount(sent, rules).rows().values(), rules.windowMillis(), TableRows.REPLACING);
        }
    }

    @Test
    void theDefaultRulesCallACorrectRowOfALongerLatenessWrong() {
        Metrics metrics = new Metrics(ReconcilerOptions.fromMap(Map.of()), CLOCK);
        try (AuditLoop loop = AuditLoop.of(
                ReconcilerOptions.fromMap(Map.of(
                        "audit.jdbc-url",
                        SERVICES.postgres().jdbcUrl("line_a"),
                        "audit.deployment",
                        NS + "/line-a",
                        "kafka.bootstrap-servers",
                        SERVICES.kafka().bootstrapServers(),
                        "kafka.topic",
                        "line-a-events",
                        "audit.span",
                        "1 h")),
                Map.of(),
                metrics,
                CLOCK)) {
            loop.runSafely();
            AuditReport r = loop.latestFor(NS, "line-a");
            r.lines().forEach(System.out::println);
            Observation o = new Observation(NOW, null, null, null, null, List.of()).withAudit(r);
            HealthResult result = new AuditCheck().evaluate(o, ReconcilerOptions.fromMap(Map.of()), CLOCK);
            assertThat(result.codes()).containsExactly(FindingCode.AUDIT_MISMATCH);
            assertThat(r.differences())
                    .extracting(Difference::toString)
                    .contains("WRONG d1@2026-11-01T11:10:00Z pieces_produced: expected 5, got 6");
        }
    }
}
