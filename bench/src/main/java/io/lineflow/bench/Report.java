package io.lineflow.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The benchmark's figures and their Markdown table. */
public final class Report {
    private final BenchSettings s;
    /** The Flink version of the bench's JVM, which runs rows 1 to 6. */
    private final String line;

    public final Samples limit = new Samples();
    public final Samples lineflow = new Samples();
    public final Samples lineflowPerCpuSecond = new Samples();
    public final Samples lineflowPerJobCpuSecond = new Samples();
    public final Samples brokerPerCpuSecond = new Samples();
    public final Samples lineflowRatioToLimit = new Samples();
    public boolean lineflowExact = true;
    /** Row 3: the plain query. */
    public final SqlRow sql = new SqlRow();
    /** Row 3b: the query with Flink SQL's deduplication in front, i.e. lineflow's work. */
    public final SqlRow sqlDedup = new SqlRow();
    /** The Flink version of rows 8 and 8b, run in a JVM of their own; null when they did not run. */
    public String otherLine;
    /** Row 8: lineflow's job on the other line. */
    public final Samples otherLineflow = new Samples();
    /** Row 8 over row 2, per round: lineflow on the other line ÷ lineflow on this one. */
    public final Samples otherLineflowToLineflow = new Samples();

    public boolean otherLineflowExact = true;
    /** Row 8b: row 3's query on the other line; its ratio is row 8 over it. */
    public final SqlRow otherSql = new SqlRow();
    /** Row 8b over row 3, per round: Flink SQL on the other line ÷ Flink SQL on this one. */
    public final Samples otherSqlToSql = new Samples();

    public final List<CheckpointCost.Result> checkpoints = new ArrayList<>();
    /** Seconds per window close, keyed {@code plain:<devices>} or {@code rewrite:<devices>}. */
    public final Map<String, Samples> sink = new LinkedHashMap<>();
    /** The reconciler's own report, or why there is none. */
    public String reconciler;

    /** One Flink SQL row: its rate and lineflow's ratio to it, per run. */
    public static final class SqlRow {
        public final Samples rate = new Samples();
        public final Samples lineflowRatio = new Samples();
        public boolean exact = true;

        private void add(long events, double seconds, double lineflowSeconds) {
            rate.add(events / seconds);
            lineflowRatio.add(seconds / lineflowSeconds);
        }
    }

    Report(BenchSettings s, String line) {
        this.s = s;
        this.line = line;
    }

    /**
     * One round's rates and ratios, from the seconds each throughput row took over the same {@code
     * events}: {@code limit} and {@code lineflow}, and the rows run when asked, {@code sql} with
     * {@code sql-dedup}, {@code other-lineflow} and {@code other-sql}. Every ratio pairs two runs of
     * this round.
     */
    public void addRound(Map<String, Double> seconds, long events) {
        double lineflowSeconds = seconds.get("lineflow");
        limit.add(events / seconds.get("limit"));
        lineflow.add(events / lineflowSeconds);
        lineflowRatioToLimit.add(seconds.get("limit") / lineflowSeconds);
        if (seconds.containsKey("sql")) {
            sql.add(events, seconds.get("sql"), lineflowSeconds);
            sqlDedup.add(events, seconds.get("sql-dedup"), lineflowSeconds);
        }
        if (seconds.containsKey("other-lineflow")) {
            double otherSeconds = seconds.get("other-lineflow");
            otherLineflow.add(events / otherSeconds);
            otherLineflowToLineflow.add(lineflowSeconds / otherSeconds);
            if (seconds.containsKey("other-sql")) {
                otherSql.add(events, seconds.get("other-sql"), otherSeconds);
                otherSqlToSql.add(seconds.get("sql") / seconds.get("other-sql"));
            }
        }
    }

    /**
     * The table. A ratio is the median of per-round ratios (each round ran its rows back to back,
     * every other round in reverse order), with the range of those ratios.
     */
    public String render(String machine, String date) {
        int cores = Runtime.getRuntime().availableProcessors();
        StringBuilder b = new StringBuilder();
        b.append("# lineflow benchmark\n\n");
        b.append("Date: ").append(date).append("  \nMachine: ").append(machine).append("  \n");
        b.append("Flink: ").append(line).append(otherLine == null ? "" : " (rows 8 and 8b: " + otherLine + ")");
        b.append("  \n");
        b.append("Workload: ").append(s).append("\n\n");
        b.append("Every row but 8 and 8b runs in one JVM (those in one of their own, on the other Flink line);"
                        + " the Kafka broker they read from runs in a JVM of its own and")
                .append(" PostgreSQL as its own processes, all sharing the cores with what is measured. A ratio is the")
                .append(" median of the ratios paired within each round, with their range: the figure to compare")
                .append(" across runs and machines, where the absolute rates are not.\n\n");
        b.append("| # | what | median | spread (min – max, n) | ratio |\n");
        b.append("|---|---|---|---|---|\n");
        row(
                b,
                "1",
                "consume limit: " + s.parallelism + " plain Kafka consumer thread(s), every event parsed",
                rate(limit),
                spread(limit, "ev/s"),
                "1.00 (the limit)");
        row(
                b,
                "2",
                "lineflow job: Kafka source → dedup → windows → downtime → PostgreSQL upsert"
                        + (lineflowExact ? " (table checked: exact)" : " (**table NOT exact**)"),
                rate(lineflow),
                spread(lineflow, "ev/s"),
                ratio("%.2f of (1)", lineflowRatioToLimit));
        if (!sql.rate.isEmpty()) {
            row(
                    b,
                    "3",
                    "Flink SQL: Kafka table → TUMBLE 5 min GROUP BY device → JDBC upsert"
                            + " (no dedup, no rejected table, no downtime seconds)"
                            + (sql.exact ? " (table checked)" : " (**table NOT complete**)"),
                    rate(sql.rate),
                    spread(sql.rate, "ev/s"),
                    ratio("lineflow = %.2f × SQL", sql.lineflowRatio));
            row(
                    b,
                    "3b",
                    "Flink SQL with lineflow's dedup: the same query over ROW_NUMBER() … PARTITION BY"
                            + " deviceId, eventId … = 1, state TTL = a window plus its lateness (no rejected table,"
                            + " no downtime seconds)"
                            + (sqlDedup.exact ? " (table checked)" : " (**table NOT complete**)"),
                    rate(sqlDedup.rate),
                    spread(sqlDedup.rate, "ev/s"),
                    ratio("lineflow = %.2f × SQL with dedup", sqlDedup.lineflowRatio));
        } else {
            row(b, "3", "Flink SQL", "skipped (--sql false)", "", "");
        }
        row(
                b,
                "4a",
                "lineflow events/s per core (row 2 ÷ " + cores + " cores; the broker and PostgreSQL on the same cores)",
                rate(lineflow.median() / cores),
                "",
                "");
        row(
                b,
                "4b",
                "lineflow events per CPU-second of the whole JVM: every Flink thread, the JIT and the garbage"
                        + " collector (not the broker or PostgreSQL, each a process of its own)",
                rate(lineflowPerCpuSecond),
                spread(lineflowPerCpuSecond, "ev/CPU-s"),
                "");
        row(
                b,
                "4c",
                "lineflow events per CPU-second of the job's own threads (source, Kafka fetcher, keyed and sink tasks)"
                        + " and the garbage collector's (not the JIT or Flink's coordination)",
                rate(lineflowPerJobCpuSecond),
                spread(lineflowPerJobCpuSecond, "ev/CPU-s"),
                "");
        row(
                b,
                "4d",
                "the Kafka broker serving row 2: events per CPU-second of its process",
                rate(brokerPerCpuSecond),
                spread(brokerPerCpuSecond, "ev/CPU-s"),
                "");
        for (CheckpointCost.Result cp : checkpoints) {
            String name = cp.backend.equals("rocksdb") ? "RocksDB incremental" : "HashMap";
            if (cp.durationMs.isEmpty()) {
                row(b, "5", "checkpoint, " + name, "no completed checkpoint", "", "");
                continue;
            }
            row(
                    b,
                    "5",
                    String.format(
                            Locale.ROOT,
                            "checkpoint, %s, %,d devices with an open window: duration p50 / p99",
                            name,
                            s.checkpointDevices),
                    fmt("%.0f ms / %.0f ms", cp.durationMs.median(), p99(cp.durationMs)),
                    spread(cp.durationMs, "ms"),
                    "full " + bytes(cp.fullSize.median()) + ", written " + bytes(cp.checkpointedSize.median())
                            + (Double.isNaN(cp.bytesPerOpenEvent)
                                    ? ""
                                    : fmt(", %.0f B per open event", cp.bytesPerOpenEvent)));
        }
        sink.forEach((key, seconds) -> {
            boolean rewrite = key.startsWith("rewrite:");
            int devices = Integer.parseInt(key.substring(key.indexOf(':') + 1));
            row(
                    b,
                    "6",
                    String.format(
                            Locale.ROOT,
                            "sink: upsert one window close, %,d devices (%d connections, batch 500%s)",
                            devices,
                            s.parallelism,
                            rewrite ? ", reWriteBatchedInserts=true" : ""),
                    fmt("%.2f s", seconds.median()),
                    spread(seconds, "s"),
                    rate(devices / seconds.median()).replace("ev/s", "rows/s"));
        });
        if (otherLine == null) {
            row(b, "8", "lineflow on the other Flink line", "not run (no --other-line)", "", "");
        } else {
            row(
                    b,
                    "8",
                    "lineflow job on Flink " + otherLine + ": row 2's job, topic and table, in a JVM of its own"
                            + " with the same options, its runs interleaved with rows 1 to 3b"
                            + (otherLineflowExact ? " (table checked: exact)" : " (**table NOT exact**)"),
                    rate(otherLineflow),
                    spread(otherLineflow, "ev/s"),
                    ratio("= %.2f × lineflow on " + line, otherLineflowToLineflow)
                            + (otherSql.rate.isEmpty()
                                    ? ""
                                    : "; " + ratio("= %.2f × Flink SQL on " + otherLine, otherSql.lineflowRatio)));
            if (!otherSql.rate.isEmpty()) {
                row(
                        b,
                        "8b",
                        "Flink SQL on Flink " + otherLine + ": row 3's query, in row 8's JVM"
                                + (otherSql.exact ? " (table checked)" : " (**table NOT complete**)"),
                        rate(otherSql.rate),
                        spread(otherSql.rate, "ev/s"),
                        ratio("SQL on " + otherLine + " = %.2f × SQL on " + line, otherSqlToSql));
            }
        }
        b.append("\n");
        b.append("(7) Reconciler: ")
                .append(reconciler == null ? "not measured" : reconciler)
                .append("\n");
        return b.toString();
    }

    private static void row(StringBuilder b, String n, String what, String median, String spread, String ratio) {
        b.append("| ")
                .append(n)
                .append(" | ")
                .append(what)
                .append(" | ")
                .append(median)
                .append(" | ")
                .append(spread)
                .append(" | ")
                .append(ratio)
                .append(" |\n");
    }

    private static String rate(Samples x) {
        return x.isEmpty() ? "–" : rate(x.median());
    }

    private static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%,.0f ev/s", perSecond);
    }

    private static String spread(Samples x, String unit) {
        if (x.isEmpty()) {
            return "";
        }
        String f = unit.equals("s") ? "%.2f" : "%,.0f";
        return String.format(
                Locale.ROOT,
                "±%.0f%% (" + f + " – " + f + " %s, n=%d)",
                x.spreadPercent(),
                x.min(),
                x.max(),
                unit,
                x.size());
    }

    /** The median of paired ratios, then their range: "0.90 of (1) (0.85–0.97, n=3)". */
    private static String ratio(String f, Samples pairs) {
        return fmt(f, pairs.median())
                + (pairs.size() < 2 ? "" : fmt(" (%.2f–%.2f, n=%d)", pairs.min(), pairs.max(), pairs.size()));
    }

    private static String fmt(String f, Object... args) {
        return String.format(Locale.ROOT, f, args);
    }

    /** The 99th percentile (nearest rank): with few samples, the largest. */
    static double p99(Samples x) {
        return x.max();
    }

    static String bytes(double b) {
        if (b >= 1 << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", b / (1 << 20));
        }
        return String.format(Locale.ROOT, "%.0f KiB", b / 1024);
    }

    static String readReconciler(Path file) {
        if (file == null) {
            return "not measured in this run (`make bench` measures it in its own JVM).";
        }
        try {
            return "one pass in its own JVM (reconciler ScaleTest: fabric8 mock API server in CRUD mode,"
                    + " fake Flink REST and Kafka):\n\n```\n"
                    + Files.readString(file).trim() + "\n```\n";
        } catch (Exception e) {
            return "not measured: " + file + " is missing (" + e.getClass().getSimpleName()
                    + "); the reconciler's ScaleTest did not run.";
        }
    }
}
