package io.lineflow.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.TestUtils;
import io.lineflow.testing.TestServices;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** `audit` against a real Kafka topic and a real table: a correct table passes, a tampered one is caught. */
class AuditCommandTest {
    private static final Path WORK = Path.of("target", "it", "audit");

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    @BeforeAll
    static void start() throws Exception {
        SERVICES.kafka().createTopic("device-events", 1);
        try (Connection c = SERVICES.postgres().connect()) {
            TestUtils.jobSchema(c); // the job's own schema
        }
        String t0 = "2026-11-01T10:0";
        try (KafkaProducer<String, String> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            for (String[] e : List.of(
                    new String[] {"a", "PIECE_PRODUCED", "1:00Z"}, new String[] {"b", "PIECE_PRODUCED", "2:00Z"},
                    new String[] {"c", "DOWNTIME_START", "3:00Z"}, new String[] {"d", "DOWNTIME_END", "4:30Z"},
                    new String[] {"e", "PIECE_PRODUCED", "6:00Z"}, new String[] {"f", "PIECE_PRODUCED", "9:00Z"})) {
                p.send(new ProducerRecord<>(
                        "device-events",
                        "d1",
                        String.format(
                                "{\"eventId\":\"%s\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"%s\",\"ts\":\"%s%s\",\"count\":2}",
                                e[0], e[1], t0, e[2])));
            }
        }
    }

    /** What the job writes for that input: window 10:00 closed (the watermark is at 10:08:50). */
    @BeforeEach
    void correctTable() throws Exception {
        sql(
                "TRUNCATE device_window_stats",
                "INSERT INTO device_window_stats (device_id, window_start, window_end, line_id, pieces_produced,"
                        + " downtime_count, downtime_seconds, events_seen, first_event_at, last_event_at) VALUES"
                        + " ('d1', '2026-11-01T10:00:00Z', '2026-11-01T10:05:00Z', 'L1', 4, 1, 90.000, 4,"
                        + " '2026-11-01T10:01:00Z', '2026-11-01T10:04:30Z')");
    }

    private static void sql(String... statements) throws Exception {
        try (Connection c = SERVICES.postgres().connect();
                Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    private static String audit(int expectedExit) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = AuditCommand.run(
                new String[] {
                    "--bootstrap",
                    SERVICES.kafka().bootstrapServers(),
                    "--jdbc-url",
                    SERVICES.postgres().jdbcUrl()
                },
                new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isEqualTo(expectedExit);
        return text;
    }

    @Test
    void aCorrectTablePasses() throws Exception {
        assertThat(audit(0)).contains("the table matches the topic");
    }

    @Test
    void aDoubledRowIsReportedWithBothValues() throws Exception {
        sql("UPDATE device_window_stats SET pieces_produced = 8");
        assertThat(audit(2))
                .contains("WRONG d1@" + Instant.parse("2026-11-01T10:00:00Z") + " pieces_produced: expected 4, got 8");
    }

    @Test
    void aMissingRowIsReported() throws Exception {
        sql("DELETE FROM device_window_stats");
        assertThat(audit(2)).contains("MISSING d1@2026-11-01T10:00:00Z");
    }

    @Test
    void anExtraRowIsReported() throws Exception {
        sql("INSERT INTO device_window_stats (device_id, window_start, window_end, line_id, pieces_produced,"
                + " downtime_count, downtime_seconds, events_seen) VALUES"
                + " ('ghost', '2026-11-01T09:55:00Z', '2026-11-01T10:00:00Z', 'L1', 1, 0, 0, 1)");
        assertThat(audit(2)).contains("EXTRA ghost@2026-11-01T09:55:00Z");
    }
}
