package io.lineflow.reconciler.audit;

import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.AuditReport.Reason;
import io.lineflow.reconciler.model.AuditReport.Unjudged;
import io.lineflow.rules.Rules;
import io.lineflow.rules.Windows;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.rules.table.WindowTable.Difference;

import org.apache.kafka.clients.consumer.ConsumerConfig;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The audit, one definition for the `audit` command and the reconciler's continuous audit: read the
 * topic ({@link TopicReader}), recount with the rules module ({@link WindowRecount.Counter}), read
 * the table, and judge ({@link #judge}).
 *
 * <p><b>A recent span.</b> The windows audited are those starting at or after {@code from}, the
 * start of the window holding {@code now − span}. Records are found by Kafka timestamp but windowed
 * by event time, so the read starts {@code max-future} earlier, at {@code offsetsForTimes(from −
 * max-future)}: every record before that offset has a Kafka timestamp before it, and the job's
 * parser rejects an event more than {@code max-future} ahead of its record's timestamp (the
 * recount's model of the job's wall clock), so no event the job counts in an audited window lies
 * before the read. Within those windows the read rebuilds everything the job decides: an id is
 * deduplicated per device and window, and the events it misses are earlier in event time than any
 * audited window, so they cannot have made an audited event late. What it cannot rebuild is
 * reported, never counted as a mismatch:
 *
 * <ul>
 *   <li>{@link Reason#OPEN}: windows not final at the read's end; reading to the job's committed
 *       offsets (the in-cluster audit) a window is final once the recount's watermark passes its end
 *       plus the allowed lateness, since the job may already have applied later records to a window
 *       still taking late events; reading to the end offsets (the command, after the job has read
 *       the topic) once it passes its end;
 *   <li>the downtime carry: whether a stop was open when the read began. Until a device's first
 *       audited window with a stop or restart event, its rows' {@code downtime_seconds} is not
 *       judged (every other cell is), and its silent stopped rows ({@link Reason#CARRY}) are not
 *       judged at all;
 *   <li>{@link Reason#READ}: Kafka's retention deleted records where the read must start, or the
 *       job's group has not committed (or is behind the read's start) on a partition. A device's
 *       partition is not known here, so then no window is judged.
 * </ul>
 */
public final class Audit {
    /** What to audit and how to reach it. */
    public record Settings(
            String bootstrap,
            Map<String, Object> kafkaProperties,
            String topic,
            String group,
            Duration span,
            Rules rules,
            long maxRecords,
            String jdbcUrl,
            String jdbcUser,
            String jdbcPassword,
            Duration timeout) {}

    private Audit() {}

    /** One audit as of {@code clock}'s now. */
    public static AuditReport run(Settings s, Clock clock) throws SQLException {
        long started = System.nanoTime();
        Instant now = clock.instant();
        Rules rules = s.rules();
        Long from = s.span() == null
                ? null
                : Windows.start(now.toEpochMilli() - s.span().toMillis(), rules.windowMillis());
        Long readFrom = from == null ? null : from - rules.maxFutureMillis();
        WindowRecount.Counter counter = new WindowRecount.Counter(rules, from == null ? Long.MIN_VALUE : from);
        Map<String, Object> props = new HashMap<>(s.kafkaProperties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        TopicReader.Read read =
                TopicReader.read(props, s.topic(), readFrom, s.group(), s.maxRecords(), s.timeout(), counter::add);
        WindowRecount.Result recount = counter.result(false);
        Map<String, Row> table;
        try (Connection c = connect(s)) {
            table = WindowTable.read(c, from, null);
        }
        return judge(
                recount,
                table,
                from == null ? Long.MIN_VALUE : from,
                s.group() != null,
                rules,
                read,
                now,
                Duration.ofNanos(System.nanoTime() - started));
    }

    /** A read-only session: PgJDBC sets the session's transactions read-only, so the audit cannot write. */
    static Connection connect(Settings s) throws SQLException {
        Properties p = new Properties();
        if (s.jdbcUser() != null && !s.jdbcUser().isEmpty()) {
            p.setProperty("user", s.jdbcUser());
        }
        if (s.jdbcPassword() != null) {
            p.setProperty("password", s.jdbcPassword());
        }
        p.setProperty("readOnly", "true");
        p.setProperty("readOnlyMode", "always");
        p.setProperty("connectTimeout", Long.toString(Math.max(1, s.timeout().toSeconds())));
        return DriverManager.getConnection(s.jdbcUrl(), p);
    }

    /**
     * The judgement (pure): the recount's rows and the table's from {@code from} on, each window
     * judged, or left unjudged with its reason (see the class comment).
     *
     * @param finalOnly judge only windows final at the read's end (reading to committed offsets)
     */
    static AuditReport judge(
            WindowRecount.Result recount,
            Map<String, Row> table,
            long from,
            boolean finalOnly,
            Rules rules,
            TopicReader.Read read,
            Instant at,
            Duration took) {
        long settle = rules.windowMillis() - 1 + (finalOnly ? rules.latenessMillis() : 0);
        Map<String, Row> all = new TreeMap<>();
        recount.rows().forEach((k, r) -> {
            if (r.windowStart() >= from) {
                all.put(k, r);
            }
        });
        table.forEach((k, r) -> {
            if (r.windowStart() >= from) {
                all.putIfAbsent(k, r);
            }
        });
        Map<String, Unjudged> unjudged = new TreeMap<>();
        Map<String, Row> expected = new TreeMap<>();
        Map<String, Row> actual = new TreeMap<>();
        TreeSet<String> carryUnknown = new TreeSet<>();
        String readProblem = read.problems().isEmpty() ? null : String.join("; ", read.problems());
        for (Map.Entry<String, Row> e : all.entrySet()) {
            String key = e.getKey();
            Row any = e.getValue();
            Row want = recount.rows().get(key);
            Row got = table.get(key);
            if (readProblem != null) {
                unjudged.put(key, new Unjudged(Reason.READ, readProblem));
            } else if (recount.closedBefore() == Long.MIN_VALUE
                    || any.windowStart() > recount.closedBefore() - settle) {
                unjudged.put(key, new Unjudged(Reason.OPEN, null));
            } else if (!recount.carryKnown(any.deviceId(), any.windowStart())
                    && (want == null || want.events() == 0)
                    && (got == null || got.events() == 0)) {
                // A silent stopped row, in the recount or the table or both: whether the stop was open
                // comes from before the read.
                unjudged.put(key, new Unjudged(Reason.CARRY, null));
            } else {
                if (want != null) {
                    expected.put(key, want);
                }
                if (got != null) {
                    actual.put(key, got);
                }
                if (!recount.carryKnown(any.deviceId(), any.windowStart())) {
                    carryUnknown.add(key);
                }
            }
        }
        List<Difference> differences = new ArrayList<>();
        long downtimeNotJudged = 0;
        for (Difference d : WindowTable.diff(expected, actual)) {
            if (d.kind() == Difference.Kind.WRONG
                    && d.column().equals("downtime_ms")
                    && carryUnknown.contains(d.key())) {
                continue;
            }
            differences.add(d);
        }
        for (String key : carryUnknown) {
            if (expected.containsKey(key) && actual.containsKey(key)) {
                downtimeNotJudged++;
            }
        }
        long differing = differences.stream().map(Difference::key).distinct().count();
        TreeSet<String> judgedKeys = new TreeSet<>(expected.keySet());
        judgedKeys.addAll(actual.keySet());
        long judged = judgedKeys.size();
        return new AuditReport(
                at,
                from,
                recount.closedBefore(),
                read.records(),
                recount.counted(),
                recount.invalid(),
                recount.duplicates(),
                recount.late(),
                TopicReader.describe(read.offsets()),
                judged - differing,
                differences,
                unjudged,
                downtimeNotJudged,
                took);
    }
}
