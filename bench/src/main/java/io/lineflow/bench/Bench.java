package io.lineflow.bench;

import io.lineflow.job.schema.Schema;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;
import io.lineflow.testing.KafkaBrokerMain;
import io.lineflow.testing.ManagedProcess;

import org.apache.flink.configuration.Configuration;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * {@code make bench}: lineflow's job against the Kafka consume limit and against Flink SQL on one
 * pre-loaded topic, then checkpoint and sink cost; prints a table and writes it to a file.
 *
 * <p>Everything is real: a Flink MiniCluster in this JVM, a KRaft Kafka broker in a JVM of its own
 * and PostgreSQL (embedded binaries) as its own processes, all on loopback. The broker shares the
 * cores with what is measured, as it would on a small node, but not the JVM: this JVM's CPU time
 * and garbage collector are Flink's and the job's. Ratios between rows of the same run are the
 * figures to compare across machines.
 */
public final class Bench {
    /**
     * Parts of the names of the lineflow job's threads: Flink names a task thread after its chain
     * of operators (the source is "kafka-source" in {@code LineflowJob.attach}, the others are
     * named in {@code LineflowPipeline}) and the Kafka fetcher thread after its source's task.
     */
    private static final String[] LINEFLOW_THREADS = {"kafka-source", "count device windows", "count rejections"};

    private final BenchSettings s;

    private Bench(BenchSettings s) {
        this.s = s;
    }

    public static void main(String[] args) throws Exception {
        BenchSettings s;
        try {
            s = BenchSettings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        new Bench(s).run();
        // Kafka's and Flink's non-daemon threads would keep the JVM alive.
        System.exit(0);
    }

    /** Runs every row and writes the report; returns the report text. */
    public static String run(BenchSettings s) throws Exception {
        return new Bench(s).run();
    }

    private String run() throws Exception {
        Path work = s.workDir.toAbsolutePath();
        Files.createDirectories(work);
        say("Settings: " + s);
        Report report = new Report(s);
        int brokerPort = EmbeddedKafka.freePort();
        String bootstrap = "127.0.0.1:" + brokerPort;
        ManagedProcess broker = startBroker(work, brokerPort);
        try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(work.resolve("postgres"));
                FlinkRuns flink = new FlinkRuns(s.parallelism, work)) {
            Configuration schemaConf = flink.lineflowConfig(bootstrap, "unused", pg.jdbcUrl(), pg.user());
            Schema.migrate(schemaConf);
            try (Connection c = pg.connect();
                    Statement st = c.createStatement()) {
                // Same shape as lineflow's table; Flink SQL does not compute downtime seconds.
                st.execute("CREATE TABLE device_window_stats_sql (LIKE device_window_stats INCLUDING ALL)");
                st.execute("ALTER TABLE device_window_stats_sql ALTER COLUMN downtime_seconds DROP NOT NULL");
            }

            String topic = "device-events";
            EmbeddedKafka.createTopic(bootstrap, topic, s.partitions);
            long t0 = System.nanoTime();
            long produced = Workload.produce(bootstrap, topic, s, Workload.start());
            say(String.format("Produced %,d events in %.1f s", produced, (System.nanoTime() - t0) / 1e9));

            Configuration lineflowConf = flink.lineflowConfig(
                    bootstrap,
                    topic,
                    pg.jdbcUrl(),
                    pg.user(),
                    "execution.checkpointing.interval",
                    s.checkpointIntervalMs + " ms");
            // Each round runs every row, back to back, and its ratios pair rows of that round only;
            // every other round runs the rows in reverse order, so that a machine getting slower or
            // faster over the run favours neither side of a ratio. Each timed run comes right after
            // untimed runs of the same row (--warmups): a row timed right after the other Flink job
            // ran up to a third slower (the JIT's code for the shared Flink and Kafka paths was
            // last fitted to the other job's types), which favoured whichever row ran first.
            Rig rig = new Rig(pg, flink, broker, lineflowConf, bootstrap, topic, produced, report);
            for (int r = 1; r <= s.repeats; r++) {
                Map<String, Double> seconds = new HashMap<>();
                List<String> order = new ArrayList<>(List.of("limit", "lineflow"));
                if (s.sql) {
                    order.addAll(List.of("sql", "sql-dedup"));
                }
                if (r % 2 == 0) {
                    Collections.reverse(order);
                }
                for (String row : order) {
                    for (int pass = s.warmups; pass >= 0; pass--) {
                        String round = String.format("[%d/%d%s]", r, s.repeats, pass == 0 ? "" : " warm-up");
                        settle();
                        seconds.put(row, runRow(rig, row, round, pass == 0));
                    }
                }
                double lineflow = seconds.get("lineflow");
                report.limit.add(produced / seconds.get("limit"));
                report.lineflow.add(produced / lineflow);
                report.lineflowRatioToLimit.add(seconds.get("limit") / lineflow);
                if (s.sql) {
                    report.sql.rate.add(produced / seconds.get("sql"));
                    report.sql.lineflowRatio.add(seconds.get("sql") / lineflow);
                    report.sqlDedup.rate.add(produced / seconds.get("sql-dedup"));
                    report.sqlDedup.lineflowRatio.add(seconds.get("sql-dedup") / lineflow);
                }
            }

            for (String backend : List.of("hashmap", "rocksdb")) {
                CheckpointCost.Result cp = CheckpointCost.run(flink, bootstrap, pg.jdbcUrl(), pg.user(), s, backend);
                report.checkpoints.add(cp);
                say(String.format(
                        "checkpoint %s: p50 %.0f ms, p99 %.0f ms, full %s, checkpointed %s (%d checkpoints)",
                        backend,
                        cp.durationMs.median(),
                        Report.p99(cp.durationMs),
                        Report.bytes(cp.fullSize.median()),
                        Report.bytes(cp.checkpointedSize.median()),
                        cp.durationMs.size()));
            }

            truncate(pg, "device_window_stats", "rejected_events");
            Configuration jobConf = flink.lineflowConfig(bootstrap, topic, pg.jdbcUrl(), pg.user());
            int batch = jobConf.get(LineflowOptions.SINK_BATCH_SIZE);
            long window = Workload.start() - 1_000 * Workload.WINDOW_MILLIS;
            for (boolean rewrite : List.of(false, true)) {
                Properties props = new Properties();
                LineflowSettings.withPrefix(jobConf, LineflowOptions.JDBC_PROPERTIES_PREFIX)
                        .forEach(props::put);
                props.put("user", pg.user());
                if (rewrite) {
                    props.put("reWriteBatchedInserts", "true");
                }
                for (int devices : s.sinkDevices) {
                    Samples seconds = new Samples();
                    for (int r = 0; r < s.repeats; r++) {
                        window += Workload.WINDOW_MILLIS;
                        seconds.add(SinkCost.windowClose(pg.jdbcUrl(), props, devices, s.parallelism, batch, window));
                    }
                    report.sink.put((rewrite ? "rewrite:" : "plain:") + devices, seconds);
                    say(String.format(
                            "sink %s%,d devices: %.2f s",
                            rewrite ? "(reWriteBatchedInserts) " : "", devices, seconds.median()));
                }
                truncate(pg, "device_window_stats");
            }
        } finally {
            broker.stop();
        }
        report.reconciler = Report.readReconciler(s.reconcilerReport);
        String text = report.render(machine(), LocalDate.now().toString());
        Files.createDirectories(s.report.toAbsolutePath().getParent());
        Files.writeString(s.report, text);
        System.out.println();
        System.out.println(text);
        System.out.println("Report written to " + s.report.toAbsolutePath());
        return text;
    }

    /** Every (device, window) row is there and the events add up: the run did the whole work. */
    private boolean check(EmbeddedPostgresServer pg, String table, long produced) throws Exception {
        try (Connection c = pg.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*), coalesce(sum(events_seen), 0) FROM " + table)) {
            rs.next();
            long rows = rs.getLong(1);
            long events = rs.getLong(2);
            boolean ok = rows == (long) s.devices * s.windows() && events == produced;
            if (!ok) {
                say(String.format(
                        "WARNING %s: %,d rows (expected %,d), %,d events (expected %,d)",
                        table, rows, (long) s.devices * s.windows(), events, produced));
            }
            return ok;
        }
    }

    /** What every throughput row runs against. */
    private record Rig(
            EmbeddedPostgresServer pg,
            FlinkRuns flink,
            ManagedProcess broker,
            Configuration lineflowConf,
            String bootstrap,
            String topic,
            long produced,
            Report report) {}

    /**
     * Runs one throughput row once and returns its seconds; a timed run's figures go into the
     * report, an untimed one only warms the row up.
     */
    private double runRow(Rig rig, String row, String round, boolean timed) throws Exception {
        EmbeddedPostgresServer pg = rig.pg();
        FlinkRuns flink = rig.flink();
        Configuration lineflowConf = rig.lineflowConf();
        String bootstrap = rig.bootstrap();
        String topic = rig.topic();
        long produced = rig.produced();
        Report report = rig.report();
        switch (row) {
            case "limit" -> {
                double limit = time(() -> ConsumeLimit.run(bootstrap, topic, s.partitions, s.parallelism));
                say(String.format("%s consume limit: %,.0f events/s", round, produced / limit));
                return limit;
            }
            case "lineflow" -> {
                truncate(pg, "device_window_stats", "rejected_events");
                long cpu0 = cpuNanos();
                long gc0 = ThreadCpu.gcNanos();
                double broker0 = rig.broker().cpuSeconds();
                long jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
                long faults0 = minorFaults();
                ThreadCpu jobThreads = ThreadCpu.start(LINEFLOW_THREADS);
                double lineflow = flink.runLineflow(lineflowConf);
                double gcCpu = (ThreadCpu.gcNanos() - gc0) / 1e9;
                double jobCpu = jobThreads.stop() + gcCpu;
                double cpu = (cpuNanos() - cpu0) / 1e9;
                double brokerCpu = rig.broker().cpuSeconds() - broker0;
                double jit = (ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit0) / 1e3;
                long faults = minorFaults() - faults0;
                boolean exact = check(pg, "device_window_stats", produced);
                if (timed) {
                    report.lineflowPerCpuSecond.add(produced / cpu);
                    report.lineflowPerJobCpuSecond.add(produced / jobCpu);
                    report.brokerPerCpuSecond.add(produced / brokerCpu);
                    report.lineflowExact &= exact;
                }
                say(String.format(
                        "%s lineflow job: %,.0f events/s (%.1f s; %.1f CPU-s, %.1f of them the job's threads, %.1f"
                                + " the collector's, %.1f s the JIT compilers'; %,d page faults; the broker %.1f CPU-s)",
                        round, produced / lineflow, lineflow, cpu, jobCpu - gcCpu, gcCpu, jit, faults, brokerCpu));
                return lineflow;
            }
            default -> {
                // Plain, or with dedup in front whose ids live as long as lineflow's
                // do: a window and its allowed lateness.
                Duration horizon = row.equals("sql")
                        ? null
                        : lineflowConf
                                .get(LineflowOptions.WINDOW_SIZE)
                                .plus(lineflowConf.get(LineflowOptions.ALLOWED_LATENESS));
                truncate(pg, "device_window_stats_sql");
                double sql = flink.runSql(
                        bootstrap, topic, pg.jdbcUrl(), "device_window_stats_sql", s.checkpointIntervalMs, horizon);
                boolean sqlExact = check(pg, "device_window_stats_sql", produced);
                if (timed) {
                    (horizon == null ? report.sql : report.sqlDedup).exact &= sqlExact;
                }
                say(String.format(
                        "%s Flink SQL%s: %,.0f events/s (%.1f s)",
                        round, horizon == null ? "" : " with dedup", produced / sql, sql));
                return sql;
            }
        }
    }

    /**
     * The broker in a JVM of its own, as in production: the bench JVM's CPU time and collector
     * are then Flink's and the job's alone. It listens on loopback.
     */
    private static ManagedProcess startBroker(Path work, int port) throws Exception {
        Path dir = Files.createDirectories(work.resolve("kafka-" + System.nanoTime()));
        ManagedProcess broker = ManagedProcess.java(
                "kafka",
                List.of("-Xmx1g", "-Djava.io.tmpdir=" + work),
                System.getProperty("java.class.path"),
                KafkaBrokerMain.class.getName(),
                List.of(dir.toString(), String.valueOf(port)),
                work.resolve("kafka.log"));
        try {
            broker.awaitOutput(KafkaBrokerMain.READY, Duration.ofSeconds(90));
        } catch (RuntimeException e) {
            broker.stop();
            throw e;
        }
        return broker;
    }

    private static void truncate(EmbeddedPostgresServer pg, String... tables) throws Exception {
        try (Connection c = pg.connect();
                Statement st = c.createStatement()) {
            st.execute("TRUNCATE " + String.join(", ", tables));
        }
    }

    /** A timed step. */
    private interface Step {
        Object run() throws Exception;
    }

    private static double time(Step step) throws Exception {
        long t0 = System.nanoTime();
        step.run();
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * A full collection before each timed row, so that no row pays for collecting the garbage
     * (or the released state) of the row before it.
     */
    private static void settle() {
        System.gc();
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * The JVM's minor page faults so far ({@code /proc/self/stat}, field 10). Among them is each
     * first touch of a heap page the JVM had given back to the OS, which the touching thread pays.
     */
    private static long minorFaults() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
    }

    static String machine() {
        String cpu = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (Exception ignored) {
            // not Linux: the core count and JVM still say enough
        }
        long heap = Runtime.getRuntime().maxMemory() >> 20;
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "?";
        }
        return String.format(
                Locale.ROOT,
                "%d cores (%s), %d GiB RAM, JVM %s %s, heap %d MiB, host %s",
                Runtime.getRuntime().availableProcessors(),
                cpu,
                ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                                .getTotalMemorySize()
                        >> 30,
                System.getProperty("java.vendor"),
                System.getProperty("java.version"),
                heap,
                host);
    }

    private void say(String line) {
        System.out.println("bench: " + line);
    }
}
