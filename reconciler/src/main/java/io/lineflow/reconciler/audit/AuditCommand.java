package io.lineflow.reconciler.audit;

import io.lineflow.reconciler.cli.Args;
import io.lineflow.rules.Rules;

import org.apache.flink.util.TimeUtils;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * `audit`: recounts the closed windows from the Kafka topic ({@link Audit}, the same audit the
 * reconciler runs on a schedule) and diffs the result against {@code device_window_stats}: missing,
 * extra and wrong rows, each wrong cell with both values, and the windows it could not judge with
 * the reason. The whole topic by default, a recent span with {@code --span}; to the end offsets, or
 * to the job's committed offsets with {@code --group}. Exit 0 when the table matches, 2 when it
 * does not.
 */
public final class AuditCommand {
    public static final String USAGE =
            "audit --bootstrap HOST:PORT --jdbc-url URL [--jdbc-user U] [--topic device-events]\n"
                    + "      [--window " + shown(Rules.DEFAULT_WINDOW) + "] [--lateness "
                    + shown(Rules.DEFAULT_LATENESS)
                    + "] [--out-of-orderness " + shown(Rules.DEFAULT_OUT_OF_ORDERNESS) + "]\n"
                    + "      [--max-bytes " + Rules.DEFAULT_MAX_BYTES + "] [--max-future "
                    + shown(Rules.DEFAULT_MAX_FUTURE)
                    + "] [--earliest " + Rules.DEFAULT_EARLIEST + "]\n"
                    + "      [--silent-fill " + shown(Rules.DEFAULT_SILENT_FILL) + "] [--span 1h] [--group lineflow]"
                    + " [--max-records N]\n"
                    + "      (the job's settings, at the job's defaults; password: env LINEFLOW_JDBC_PASSWORD)";

    private AuditCommand() {}

    public static int run(String[] argv, PrintStream out) throws SQLException {
        Args a = Args.parse(
                argv,
                Set.of(
                        "bootstrap",
                        "jdbc-url",
                        "jdbc-user",
                        "topic",
                        "group",
                        "span",
                        "max-records",
                        "window",
                        "lateness",
                        "out-of-orderness",
                        "max-bytes",
                        "max-future",
                        "earliest",
                        "silent-fill"),
                Set.of());
        String bootstrap = a.require("bootstrap");
        String url = a.require("jdbc-url");
        Rules d = Rules.defaults();
        Rules rules = new Rules(
                duration(a.get("window", null), d.windowMillis()),
                duration(a.get("lateness", null), d.latenessMillis()),
                duration(a.get("out-of-orderness", null), d.outOfOrdernessMillis()),
                a.get("max-bytes", null) == null ? d.maxBytes() : bytes(a.get("max-bytes", null)),
                duration(a.get("max-future", null), d.maxFutureMillis()),
                a.get("earliest", null) == null ? d.earliestMillis() : instant(a.get("earliest", null)),
                duration(a.get("silent-fill", null), d.silentFillMillis()));
        String span = a.get("span", null);
        AuditReport report = Audit.run(
                new Audit.Settings(
                        bootstrap,
                        Map.of(),
                        a.get("topic", "device-events"),
                        a.get("group", null),
                        span == null ? null : Duration.ofMillis(duration(span)),
                        rules,
                        a.get("max-records", null) == null ? Long.MAX_VALUE : records(a.get("max-records", null)),
                        url,
                        a.get("jdbc-user", null),
                        System.getenv("LINEFLOW_JDBC_PASSWORD"),
                        Duration.ofSeconds(30)),
                Clock.systemUTC());
        report.lines().forEach(out::println);
        out.println(
                report.clean()
                        ? "audit: the table matches the topic"
                        : "audit: " + report.differences().size() + " discrepancies");
        return report.clean() ? 0 : 2;
    }

    private static long records(String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new Args.UsageException("max-records " + text + ": expected a number of records, e.g. 10000000");
        }
    }

    private static int bytes(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new Args.UsageException("max-bytes " + text + ": expected a number of bytes, e.g. 65536");
        }
    }

    private static long instant(String text) {
        try {
            return Instant.parse(text.trim()).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            throw new Args.UsageException(
                    "earliest " + text + ": expected an ISO-8601 instant, e.g. 2000-01-01T00:00:00Z");
        }
    }

    private static String shown(Duration d) {
        return TimeUtils.formatWithHighestUnit(d);
    }

    /** {@code text} in milliseconds, or {@code absent} if the option was not given. */
    private static long duration(String text, long absent) {
        return text == null ? absent : duration(text);
    }

    /** Flink's duration syntax, as the job's settings are written: 500 ms, 10 s, 5 min, 7 d (or 5m, 7d). */
    static long duration(String text) {
        try {
            return TimeUtils.parseDuration(text).toMillis();
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(
                    "duration " + text + ": " + e.getMessage() + " (e.g. 500 ms, 10 s, 5 min, 7 d)");
        }
    }
}
