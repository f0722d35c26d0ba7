package io.lineflow.bench;

import io.lineflow.settings.LineflowOptions;

import org.apache.flink.configuration.Configuration;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * The throughput rows that run on Flink: lineflow's job and the Flink SQL queries on one {@link
 * FlinkRuns}, each over the whole pre-loaded topic, its table emptied before and checked after.
 * The bench's JVM runs them on its own Flink line; {@link OtherLine} runs the same rows on the other
 * line in a JVM of its own, against the same broker and PostgreSQL.
 */
final class LineRows {
    /** The rows {@link #run} knows. */
    static final List<String> ROWS = List.of("lineflow", "sql", "sql-dedup");

    /**
     * What the rows read and write: the topic, the database, and what a complete run leaves in a
     * table ({@code rows} (device, window) rows counting {@code events} events in all).
     */
    record Target(
            String bootstrap,
            String topic,
            String jdbcUrl,
            String user,
            long events,
            long rows,
            long checkpointIntervalMs) {}

    /** One run: its wall time, and whether its table held every row and every event after it. */
    record Run(double seconds, boolean exact) {}

    /**
     * What a caller reads around a row's job alone, not around the emptying of its table, the
     * collection before it or the check after it.
     */
    interface Probe {
        Probe NONE = new Probe() {};

        default void started() throws Exception {}

        default void ended() throws Exception {}
    }

    private final FlinkRuns flink;
    private final Target target;
    private final Configuration lineflowConf;

    LineRows(FlinkRuns flink, Target target) {
        this.flink = flink;
        this.target = target;
        this.lineflowConf = flink.lineflowConfig(
                target.bootstrap(),
                target.topic(),
                target.jdbcUrl(),
                target.user(),
                "execution.checkpointing.interval",
                target.checkpointIntervalMs() + " ms");
    }

    /** Runs {@code row}, one of {@link #ROWS}. */
    Run run(String row) throws Exception {
        return switch (row) {
            case "lineflow" -> lineflow(Probe.NONE);
            case "sql" -> sql(false);
            case "sql-dedup" -> sql(true);
            default -> throw new IllegalArgumentException("row " + row + " is none of " + ROWS);
        };
    }

    /** lineflow's job, as deployed, into {@code device_window_stats}; {@code probe} around the job. */
    Run lineflow(Probe probe) throws Exception {
        truncate("device_window_stats", "rejected_events");
        settle();
        probe.started();
        double seconds = flink.runLineflow(lineflowConf);
        probe.ended();
        return new Run(seconds, check("device_window_stats"));
    }

    /**
     * The Flink SQL query into {@code device_window_stats_sql}: plain, or with Flink SQL's
     * deduplication in front whose ids live as long as lineflow's do (a window and its allowed
     * lateness).
     */
    Run sql(boolean dedup) throws Exception {
        Duration horizon = dedup
                ? lineflowConf.get(LineflowOptions.WINDOW_SIZE).plus(lineflowConf.get(LineflowOptions.ALLOWED_LATENESS))
                : null;
        truncate("device_window_stats_sql");
        settle();
        double seconds = flink.runSql(
                target.bootstrap(),
                target.topic(),
                target.jdbcUrl(),
                "device_window_stats_sql",
                target.checkpointIntervalMs(),
                horizon);
        return new Run(seconds, check("device_window_stats_sql"));
    }

    /**
     * A full collection before each timed row, so that no row pays for collecting the garbage (or
     * the released state) of the row before it in this JVM.
     */
    static void settle() {
        System.gc();
    }

    /** Every (device, window) row is there and the events add up: the run did the whole work. */
    private boolean check(String table) throws Exception {
        try (Connection c = connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*), coalesce(sum(events_seen), 0) FROM " + table)) {
            rs.next();
            long rows = rs.getLong(1);
            long events = rs.getLong(2);
            boolean ok = rows == target.rows() && events == target.events();
            if (!ok) {
                System.out.printf(
                        "bench: WARNING %s: %,d rows (expected %,d), %,d events (expected %,d)%n",
                        table, rows, target.rows(), events, target.events());
            }
            return ok;
        }
    }

    private void truncate(String... tables) throws Exception {
        try (Connection c = connect();
                Statement st = c.createStatement()) {
            st.execute("TRUNCATE " + String.join(", ", tables));
        }
    }

    private Connection connect() throws Exception {
        return DriverManager.getConnection(target.jdbcUrl(), target.user(), "");
    }
}
