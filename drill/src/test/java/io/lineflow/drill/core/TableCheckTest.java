package io.lineflow.drill.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.testing.EmbeddedPostgresServer;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Scenarios that share one table, one after another, are each judged on what is new; and the
 * verifier reads the tables only once both hold what it expects, or have stopped changing.
 */
class TableCheckTest {
    @TempDir
    static Path dir;

    private static EmbeddedPostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        postgres = EmbeddedPostgresServer.start(dir);
        Schema.migrate(JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", postgres.jdbcUrl(), "--lineflow.jdbc.user", postgres.user()},
                Map.of(),
                new Configuration()));
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        postgres.close();
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        postgres.truncateTables();
    }

    /** One window of two devices, and one rejection of each reason. */
    private static final TableCheck.Expectation EXPECTED = new TableCheck.Expectation(
            Map.of(row("d1", 0, 5).key(), row("d1", 0, 5), row("d2", 0, 3).key(), row("d2", 0, 3)),
            Map.of(RejectReason.MALFORMED_JSON, 1L, RejectReason.UNKNOWN_TYPE, 1L, RejectReason.DUPLICATE, 1L));

    private static void writeWindows(TableCheck.Expectation expected) throws SQLException {
        try (Connection c = postgres.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO device_window_stats (device_id, window_start,"
                        + " window_end, line_id, pieces_produced, downtime_count, downtime_seconds, events_seen)"
                        + " VALUES (?, ?, ?, ?, ?, 0, 0, ?)")) {
            for (Row r : expected.windows().values()) {
                ps.setString(1, r.deviceId());
                ps.setTimestamp(2, new Timestamp(r.windowStart()));
                ps.setTimestamp(3, new Timestamp(r.windowStart() + TableCheck.WINDOW));
                ps.setString(4, r.lineId());
                ps.setLong(5, r.pieces());
                ps.setLong(6, r.events());
                ps.executeUpdate();
            }
        }
    }

    /** One row of rejected_events per rejection {@code expected} counts, but {@code fewer} fewer. */
    private static void writeRejections(TableCheck.Expectation expected, int fewer) throws SQLException {
        try (Connection c = postgres.connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO rejected_events"
                        + " (topic, kafka_partition, kafka_offset, reason) VALUES ('device-events', 0, ?, ?)")) {
            long offset = 0;
            int left = fewer;
            for (Map.Entry<RejectReason, Long> e : expected.rejections().entrySet()) {
                for (long i = 0; i < e.getValue(); i++) {
                    if (left-- > 0) {
                        continue;
                    }
                    ps.setLong(1, offset++);
                    ps.setString(2, e.getKey().name());
                    ps.executeUpdate();
                }
            }
        }
    }

    /** {@link TableCheck#await} on {@link #EXPECTED}, polling every 100 ms. */
    private static TableCheck.Observed await(Duration max, Duration quiet, Duration minimum)
            throws InterruptedException {
        return TableCheck.await(postgres::connect, EXPECTED, max, quiet, minimum, Duration.ofMillis(100));
    }

    @Test
    void exactNeedsBothTheWindowsAndTheRejections() {
        Map<RejectReason, Long> oneShort = new TreeMap<>(EXPECTED.rejections());
        oneShort.put(RejectReason.MALFORMED_JSON, 0L);
        Map<String, Row> windowShort = new TreeMap<>(EXPECTED.windows());
        windowShort.remove(windowShort.keySet().iterator().next());

        assertThat(TableCheck.exact(EXPECTED, EXPECTED.windows(), EXPECTED.rejections()))
                .isTrue();
        assertThat(TableCheck.exact(EXPECTED, EXPECTED.windows(), oneShort))
                .as("windows exact, rejected_events not yet")
                .isFalse();
        assertThat(TableCheck.exact(EXPECTED, windowShort, EXPECTED.rejections()))
                .isFalse();
    }

    /**
     * The jm-failover@50%/k8s-ha flake: the last window's rows were in the table before its
     * rejections (the two sinks flush on their own timers), and the verifier, which waited for the
     * windows alone, read rejected_events in between.
     */
    @Test
    void waitsForRejectionsThatArriveAfterTheWindows() throws Exception {
        writeWindows(EXPECTED);
        long start = System.currentTimeMillis();
        CompletableFuture<Void> late = CompletableFuture.runAsync(() -> {
            try {
                // Not a wait: the scenario under test, the second sink flushing its rows late.
                Thread.sleep(2000);
                writeRejections(EXPECTED, 0);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        TableCheck.Observed observed = await(Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(10));
        late.get();

        assertThat(System.currentTimeMillis() - start).isGreaterThanOrEqualTo(2000);
        assertThat(observed.exact()).isTrue();
        assertThat(observed.waited()).startsWith("both tables exact after");
        ScenarioResult result = new ScenarioResult(new Scenario("steady", false, false));
        TableCheck.verify(observed, result, new HashSet<>());
        assertThat(result.problems).isEmpty();
        assertThat(result.rejectionsActual).isEqualTo(result.rejectionsExpected);
    }

    @Test
    void rejectionsThatNeverArriveAreReportedOnceBothTablesHaveSettled() throws Exception {
        writeWindows(EXPECTED);
        writeRejections(EXPECTED, 1);

        TableCheck.Observed observed = await(Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofSeconds(2));

        assertThat(observed.exact()).isFalse();
        assertThat(observed.waited())
                .startsWith("not exact; both tables unchanged for 1 s")
                .contains("device_window_stats 2 of 2 rows, 0 differences");
        ScenarioResult result = new ScenarioResult(new Scenario("steady", false, false));
        TableCheck.verify(observed, result, new HashSet<>());
        assertThat(result.problems)
                .singleElement()
                .asString()
                .isEqualTo("REJECTED expected {MALFORMED_JSON=1, UNKNOWN_TYPE=1, DUPLICATE=1},"
                        + " got {UNKNOWN_TYPE=1, DUPLICATE=1}");
        assertThat(result.waited).isEqualTo(observed.waited());
    }

    @Test
    void aTableThatNeverSettlesIsReadAtTheDeadline() throws Exception {
        TableCheck.Observed observed = await(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(10));

        assertThat(observed.exact()).isFalse();
        assertThat(observed.waited()).startsWith("not exact when the deadline of 1 s passed");
    }

    private static Row row(String device, long start, long pieces) {
        return new Row(device, "line-1", start, pieces, 0, 0, 1, null, null);
    }

    private static ScenarioResult judge(Map<String, Row> expected, Map<String, Row> actual, Set<String> reported) {
        ScenarioResult result = new ScenarioResult(new Scenario("steady", false, false));
        TableCheck.judgeTable(expected, actual, result, reported);
        return result;
    }

    @Test
    void aLaterScenarioReportsOnlyItsOwnProblemsButCountsTheWholeTable() {
        Set<String> reported = new HashSet<>();
        Map<String, Row> expected = new TreeMap<>();
        Map<String, Row> actual = new TreeMap<>();
        expected.put("d1@0", row("d1", 0, 5));
        actual.put("d1@0", row("d1", 0, 7)); // doubled by the first scenario's fault

        ScenarioResult first = judge(expected, actual, reported);
        assertThat(first.wrong).isEqualTo(1);
        assertThat(first.problems).singleElement().asString().startsWith("WRONG d1@0 pieces_produced");

        long next = 10 * TableCheck.WINDOW;
        expected.put("d1@" + next, row("d1", next, 3)); // the second scenario's window, never written
        ScenarioResult second = judge(expected, actual, reported);
        assertThat(second.wrong).isZero();
        assertThat(second.missing).isEqualTo(1);
        assertThat(second.problems).singleElement().asString().startsWith("MISSING d1@" + next);
        assertThat(second.rowsExpected).isEqualTo(2);
        assertThat(second.rowsActual).isEqualTo(1);

        // A problem that changes is new: the same window wrong by another amount is reported again.
        actual.put("d1@0", row("d1", 0, 9));
        ScenarioResult third = judge(expected, actual, reported);
        assertThat(third.wrong).isEqualTo(1);
        assertThat(third.missing).isZero();
    }

    @Test
    void withNothingReportedBeforeEveryProblemIsReported() {
        Map<String, Row> expected = new TreeMap<>(Map.of("d1@0", row("d1", 0, 5)));
        Map<String, Row> actual = new TreeMap<>(Map.of("d2@0", row("d2", 0, 5)));
        ScenarioResult result = judge(expected, actual, new HashSet<>());
        assertThat(result.missing).isEqualTo(1);
        assertThat(result.extra).isEqualTo(1);
        assertThat(result.problems).hasSize(2);
    }
}
