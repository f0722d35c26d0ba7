package io.lineflow.reconciler.cli;

import io.lineflow.reconciler.audit.Audit;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.rules.Rules;
import io.lineflow.settings.ConfigException;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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
                    + "      [--config FILE] (the job's lineflow.properties: its settings, the options below over them)\n"
                    + "      [--window " + shown(Rules.DEFAULT_WINDOW) + "] [--lateness "
                    + shown(Rules.DEFAULT_LATENESS)
                    + "] [--out-of-orderness " + shown(Rules.DEFAULT_OUT_OF_ORDERNESS) + "]\n"
                    + "      [--max-bytes " + Rules.DEFAULT_MAX_BYTES + "] [--max-future "
                    + shown(Rules.DEFAULT_MAX_FUTURE)
                    + "] [--earliest " + Rules.DEFAULT_EARLIEST + "]\n"
                    + "      [--silent-fill " + shown(Rules.DEFAULT_SILENT_FILL) + "] [--span 1h] [--group lineflow]"
                    + " [--max-records N]\n"
                    + "      (the job's settings, at the job's defaults; password: env LINEFLOW_JDBC_PASSWORD)";

    /** The options that are the job's settings, each with the job's key: read as the job reads it. */
    private static final Map<String, ConfigOption<?>> JOB_SETTINGS = jobSettings();

    private AuditCommand() {}

    private static Map<String, ConfigOption<?>> jobSettings() {
        Map<String, ConfigOption<?>> m = new LinkedHashMap<>();
        m.put("bootstrap", LineflowOptions.KAFKA_BOOTSTRAP_SERVERS);
        m.put("topic", LineflowOptions.KAFKA_TOPIC);
        m.put("jdbc-url", LineflowOptions.JDBC_URL);
        m.put("jdbc-user", LineflowOptions.JDBC_USER);
        m.put("window", LineflowOptions.WINDOW_SIZE);
        m.put("lateness", LineflowOptions.ALLOWED_LATENESS);
        m.put("out-of-orderness", LineflowOptions.OUT_OF_ORDERNESS);
        m.put("max-bytes", LineflowOptions.MAX_EVENT_SIZE);
        m.put("max-future", LineflowOptions.MAX_FUTURE);
        m.put("earliest", LineflowOptions.EARLIEST_EVENT_TIME);
        m.put("silent-fill", LineflowOptions.DOWNTIME_SILENT_FILL);
        return m;
    }

    public static int run(String[] argv, PrintStream out) throws SQLException {
        Set<String> valued = new HashSet<>(JOB_SETTINGS.keySet());
        valued.addAll(Set.of(LineflowSettings.CONFIG_FILE_ARG, "group", "span", "max-records"));
        Args a = Args.parse(argv, valued, Set.of());
        String file = a.get(LineflowSettings.CONFIG_FILE_ARG, null);
        if (file == null) {
            a.require("bootstrap");
            a.require("jdbc-url");
        }
        // The job's settings from its file and these options, through the job's own reading.
        List<String> settings = new ArrayList<>();
        if (file != null) {
            settings.addAll(List.of("--" + LineflowSettings.CONFIG_FILE_ARG, file));
        }
        JOB_SETTINGS.forEach((name, option) -> {
            String value = a.get(name, null);
            if (value != null) {
                settings.addAll(List.of("--" + option.key(), value));
            }
        });
        Configuration job;
        try {
            job = LineflowSettings.read(
                    new Configuration(), settings.toArray(String[]::new), Map.of(), LineflowSettings.LOCAL_FILES);
        } catch (ConfigException e) {
            throw new Args.UsageException(String.join("; ", e.problems()));
        }
        String span = a.get("span", null);
        AuditReport report = Audit.run(
                new Audit.Settings(
                        job.get(LineflowOptions.KAFKA_BOOTSTRAP_SERVERS),
                        Map.of(),
                        job.get(LineflowOptions.KAFKA_TOPIC),
                        a.get("group", null),
                        span == null ? null : duration(span),
                        LineflowSettings.rules(job),
                        a.get("max-records", null) == null ? Long.MAX_VALUE : records(a.get("max-records", null)),
                        job.get(LineflowOptions.JDBC_URL),
                        job.get(LineflowOptions.JDBC_USER),
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

    private static String shown(Duration d) {
        return TimeUtils.formatWithHighestUnit(d);
    }

    /** Flink's duration syntax, as the job's settings are written: 500 ms, 10 s, 5 min, 7 d (or 5m, 7d). */
    static Duration duration(String text) {
        try {
            return TimeUtils.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(
                    "duration " + text + ": " + e.getMessage() + " (e.g. 500 ms, 10 s, 5 min, 7 d)");
        }
    }
}
