package io.lineflow.drill.core;

import io.lineflow.rules.Rules;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The drill's input and verifier, whatever runs the job: produces the deterministic input at a
 * steady pace, waits for the table and rejected_events and compares both with the known answer.
 * The local drill (LocalDrill) and the Kubernetes end-to-end run (KubernetesDrill) share it, so
 * both backends are judged by the same rule.
 */
public final class TableCheck {
    /** The job's default window: the drills' jobs run at the rules' defaults. */
    public static final long WINDOW = Rules.DEFAULT_WINDOW.toMillis();

    /** Where the first scenario's input starts. */
    public static final long T0 = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

    /** Where the table lives: a fresh connection per call, so a database outage is survivable. */
    public interface Database {
        Connection connect() throws SQLException;
    }

    private TableCheck() {}

    /**
     * Sends every record of {@code input} to {@code topic}, spread evenly over {@code totalMillis};
     * counts down {@code atInjection} once the first {@code injectIndex} records are acknowledged,
     * then sends the rest only once {@code resume} is open (a fault that must have taken effect
     * before more input arrives holds it; others pass an open latch). A record Kafka refuses is
     * counted in {@code rejectedByKafka}: the expected table would then not be what was sent.
     */
    public static void produce(
            String bootstrap,
            String topic,
            DeterministicInput input,
            long totalMillis,
            int injectIndex,
            CountDownLatch atInjection,
            CountDownLatch resume,
            AtomicLong rejectedByKafka) {
        int n = input.records.size();
        long start = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
            for (int i = 0; i < n; i++) {
                if (i == injectIndex) {
                    p.flush();
                    atInjection.countDown();
                    resume.await();
                }
                long wait = start + totalMillis * i / n - System.currentTimeMillis();
                if (wait > 0) {
                    Pause.sleep(wait);
                }
                DeterministicInput.Record r = input.records.get(i);
                p.send(record(topic, r), (metadata, e) -> {
                    if (e != null) {
                        rejectedByKafka.incrementAndGet();
                    }
                });
            }
            p.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the producer was interrupted while it held the input", e);
        } finally {
            atInjection.countDown();
        }
    }

    /**
     * The drills' producer: every record acknowledged by the broker, in order, retried through a
     * broker restart for up to 5 minutes.
     */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1); // see DeterministicInput.produce
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** {@code r} to {@code topic}, its partition and key as the input gives them. */
    public static ProducerRecord<byte[], byte[]> record(String topic, DeterministicInput.Record r) {
        return new ProducerRecord<>(topic, r.partition, r.key.getBytes(StandardCharsets.UTF_8), r.value);
    }

    /**
     * What the job must have written once it has read the input: the windows the watermark closed
     * and, per reason, the rows of {@code rejected_events}. {@link #await} waits for it and {@link
     * #verify} judges against it, so the wait and the verdict cannot mean two different things.
     */
    public record Expectation(Map<String, Row> windows, Map<RejectReason, Long> rejections) {
        public Expectation {
            windows = Collections.unmodifiableMap(new TreeMap<>(windows));
            rejections = Collections.unmodifiableMap(new TreeMap<>(rejections));
        }
    }

    /**
     * Both tables as {@link #await} last read them (in one transaction), and what it waited for
     * before it stopped.
     */
    public record Observed(
            Expectation expected, Map<String, Row> windows, Map<RejectReason, Long> rejections, String waited) {
        public boolean exact() {
            return TableCheck.exact(expected, windows, rejections);
        }
    }

    /**
     * Whether the tables hold exactly what is expected: every window row, cell by cell, and as many
     * rows of {@code rejected_events} per reason. The two sinks flush independently, so either may
     * be complete before the other.
     */
    static boolean exact(Expectation expected, Map<String, Row> windows, Map<RejectReason, Long> rejections) {
        return WindowTable.diff(expected.windows(), windows).isEmpty()
                && expected.rejections().equals(rejections);
    }

    /**
     * Waits until device_window_stats and rejected_events are both exact, or have both stopped
     * changing for 15 s (at least 20 s after the call), or {@code max} has passed: a broken job
     * never becomes exact, and waiting for ever would prove nothing. Polls once a second.
     */
    public static Observed await(Database db, Expectation expected, Duration max) throws InterruptedException {
        return await(db, expected, max, Duration.ofSeconds(15), Duration.ofSeconds(20), Duration.ofSeconds(1));
    }

    static Observed await(
            Database db, Expectation expected, Duration max, Duration quiet, Duration minimum, Duration poll)
            throws InterruptedException {
        long start = System.currentTimeMillis();
        long lastChange = start;
        String lastFingerprint = "";
        Map<String, Row> windows = Map.of();
        Map<RejectReason, Long> rejections = Map.of();
        String unreachable = "";
        while (true) {
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                windows = withoutTicks(WindowTable.read(c));
                rejections = WindowTable.rejections(c);
                Long newest = newestRowUpdate(c);
                c.commit();
                unreachable = "";
                if (exact(expected, windows, rejections)) {
                    return new Observed(expected, windows, rejections, "both tables exact after " + since(start));
                }
                String fingerprint = windows.size() + "/" + newest + "/" + rejections;
                if (!fingerprint.equals(lastFingerprint)) {
                    lastFingerprint = fingerprint;
                    lastChange = System.currentTimeMillis();
                }
            } catch (SQLException e) {
                lastChange = System.currentTimeMillis(); // the database is not back yet
                unreachable = "; the database was unreachable at the last look: " + e.getMessage();
            }
            long now = System.currentTimeMillis();
            if (now - start >= max.toMillis()) {
                return new Observed(
                        expected,
                        windows,
                        rejections,
                        "not exact when the deadline of " + max.toSeconds() + " s passed ("
                                + progress(expected, windows, rejections) + ")" + unreachable);
            }
            if (now - lastChange > quiet.toMillis() && now - start > minimum.toMillis()) {
                return new Observed(
                        expected,
                        windows,
                        rejections,
                        "not exact; both tables unchanged for " + quiet.toSeconds() + " s, " + since(start)
                                + " after the wait began (" + progress(expected, windows, rejections) + ")");
            }
            Thread.sleep(poll.toMillis());
        }
    }

    private static String since(long start) {
        return DrillReport.seconds(System.currentTimeMillis() - start);
    }

    private static String progress(Expectation expected, Map<String, Row> windows, Map<RejectReason, Long> rejections) {
        return "device_window_stats " + windows.size() + " of "
                + expected.windows().size() + " rows, "
                + WindowTable.diff(expected.windows(), windows).size() + " differences; rejected_events " + rejections
                + " of " + expected.rejections();
    }

    /**
     * The table the job must have written once it has read {@code sent}: the windows the watermark
     * ticks closed, by the rules module's recount at the job's defaults (the drills' jobs run with
     * them), the ticks' own rows left out.
     */
    public static Map<String, Row> expected(List<WindowRecount.Input> sent) {
        return withoutTicks(ExpectedWindows.closed(sent, Rules.defaults()));
    }

    /** The watermark ticks' own rows are not part of the expected table: their windows stay open. */
    private static Map<String, Row> withoutTicks(Map<String, Row> rows) {
        Map<String, Row> out = new TreeMap<>(rows);
        out.keySet().removeIf(k -> k.startsWith("tick-"));
        return out;
    }

    /**
     * Judges what {@link #await} saw against what it waited for; findings go to {@code result},
     * except those already in {@code reported} (scenarios that share one table, one after another,
     * each report only what is new), which then holds them too.
     */
    public static void verify(Observed observed, ScenarioResult result, Set<String> reported) {
        Expectation expected = observed.expected();
        judgeTable(expected.windows(), observed.windows(), result, reported);
        result.rejectionsExpected = expected.rejections().toString();
        result.rejectionsActual = observed.rejections().toString();
        result.waited = observed.waited();
        String problem = "REJECTED expected " + expected.rejections() + ", got " + observed.rejections();
        if (!observed.rejections().equals(expected.rejections()) && reported.add(problem)) {
            result.problems.add(problem);
        }
    }

    /** The table half of {@link #verify}: the cell-by-cell diff, less what {@code reported} holds. */
    public static void judgeTable(
            Map<String, Row> expected, Map<String, Row> actual, ScenarioResult result, Set<String> reported) {
        List<WindowTable.Difference> problems = new ArrayList<>(WindowTable.diff(expected, actual));
        problems.removeIf(p -> reported.contains(p.toString()));
        problems.forEach(p -> reported.add(p.toString()));
        problems.forEach(p -> result.problems.add(p.toString()));
        result.missing = (int) problems.stream()
                .filter(p -> p.kind() == WindowTable.Difference.Kind.MISSING)
                .count();
        result.extra = (int) problems.stream()
                .filter(p -> p.kind() == WindowTable.Difference.Kind.EXTRA)
                .count();
        result.wrong = (int) problems.stream()
                .filter(p -> p.kind() == WindowTable.Difference.Kind.WRONG)
                .map(WindowTable.Difference::key)
                .distinct()
                .count();
        result.rowsExpected = expected.size();
        result.rowsActual = actual.size();
        expected.values().forEach(r -> result.piecesExpected.merge(r.windowStart(), r.pieces(), Long::sum));
        actual.values().forEach(r -> result.piecesActual.merge(r.windowStart(), r.pieces(), Long::sum));
    }

    /** The first {@code updated_at} after {@code after}, or null when there is none (or no database). */
    public static Long firstRowWrittenAfter(Database db, long after) {
        try (Connection c = db.connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT min(updated_at) FROM device_window_stats WHERE updated_at > ?")) {
            s.setTimestamp(1, new Timestamp(after));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getTimestamp(1) == null ? null : rs.getTimestamp(1).getTime();
            }
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }

    private static Long newestRowUpdate(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT max(updated_at) FROM device_window_stats")) {
            rs.next();
            return rs.getTimestamp(1) == null ? null : rs.getTimestamp(1).getTime();
        }
    }
}
