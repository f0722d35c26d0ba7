package io.lineflow.bench;

import io.lineflow.job.schema.Schema;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;
import io.lineflow.testing.KafkaBrokerMain;
import io.lineflow.testing.ManagedProcess;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.util.EnvironmentInformation;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
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

    /**
     * How long the other line's JVM may take to start or to answer a run: only a hung one waits it
     * out (one that dies ends the wait at once), and a full-size run takes well under a minute.
     */
    private static final Duration OTHER_LINE_PATIENCE = Duration.ofMinutes(20);

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
        Report report = new Report(s, EnvironmentInformation.getVersion());
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

            LineRows.Target target = new LineRows.Target(
                    bootstrap,
                    topic,
                    pg.jdbcUrl(),
                    pg.user(),
                    produced,
                    (long) s.devices * s.windows(),
                    s.checkpointIntervalMs);
            // Each round runs every row, back to back, and its ratios pair rows of that round only;
            // every other round runs the rows in reverse order, so that a machine getting slower or
            // faster over the run favours neither side of a ratio. Each timed run comes right after
            // untimed runs of the same row (--warmups): a row timed right after the other Flink job
            // ran up to a third slower (the JIT's code for the shared Flink and Kafka paths was
            // last fitted to the other job's types), which favoured whichever row ran first. The
            // other line's rows run in its own JVM, between this JVM's, so that they too see the
            // machine as the rows they are compared with do.
            try (OtherLine other = s.otherLine == null
                    ? null
                    : OtherLine.start(s.otherLine, work, s.parallelism, target, OTHER_LINE_PATIENCE)) {
                if (other != null) {
                    report.otherLine = other.flinkVersion;
                    say("Flink " + other.flinkVersion + " runs rows 8 and 8b in a JVM of its own; its log: "
                            + other.log());
                }
                Rig rig = new Rig(new LineRows(flink, target), other, broker, target, report);
                for (int r = 1; r <= s.repeats; r++) {
                    Map<String, Double> seconds = new HashMap<>();
                    List<String> order = new ArrayList<>(List.of("limit", "lineflow"));
                    if (other != null) {
                        order.add("other-lineflow");
                        if (s.sql) {
                            order.add("other-sql");
                        }
                    }
                    if (s.sql) {
                        order.addAll(List.of("sql", "sql-dedup"));
                    }
                    if (r % 2 == 0) {
                        Collections.reverse(order);
                    }
                    for (String row : order) {
                        for (int pass = s.warmups; pass >= 0; pass--) {
                            String round = String.format("[%d/%d%s]", r, s.repeats, pass == 0 ? "" : " warm-up");
                            seconds.put(row, runRow(rig, row, round, pass == 0));
                        }
                    }
                    report.addRound(seconds, produced);
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

            pg.truncateTables();
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
                pg.truncateTables();
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

    /**
     * The CPU one lineflow run used, read around its job: the JVM's, the job's threads' plus the
     * collector's ({@code job}, {@code gc} of it), the JIT's time, the page faults, the broker's.
     */
    private static final class Cpu implements LineRows.Probe {
        private final ManagedProcess brokerProcess;
        private long cpu0;
        private long gc0;
        private double broker0;
        private long jit0;
        private long faults0;
        private ThreadCpu jobThreads;
        double jvm;
        double job;
        double gc;
        double jit;
        long faults;
        double broker;

        Cpu(ManagedProcess brokerProcess) {
            this.brokerProcess = brokerProcess;
        }

        @Override
        public void started() throws Exception {
            cpu0 = cpuNanos();
            gc0 = ThreadCpu.gcNanos();
            broker0 = brokerProcess.cpuSeconds();
            jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
            faults0 = minorFaults();
            jobThreads = ThreadCpu.start(LINEFLOW_THREADS);
        }

        @Override
        public void ended() throws Exception {
            gc = (ThreadCpu.gcNanos() - gc0) / 1e9;
            job = jobThreads.stop() + gc;
            jvm = (cpuNanos() - cpu0) / 1e9;
            broker = brokerProcess.cpuSeconds() - broker0;
            jit = (ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit0) / 1e3;
            faults = minorFaults() - faults0;
        }
    }

    /** What every throughput row runs against; {@code other} is null without the other line. */
    private record Rig(LineRows rows, OtherLine other, ManagedProcess broker, LineRows.Target target, Report report) {}

    /**
     * Runs one throughput row once and returns its seconds; a timed run's figures go into the
     * report, an untimed one only warms the row up.
     */
    private double runRow(Rig rig, String row, String round, boolean timed) throws Exception {
        long produced = rig.target().events();
        Report report = rig.report();
        switch (row) {
            case "limit" -> {
                LineRows.settle();
                double limit = time(() ->
                        ConsumeLimit.run(rig.target().bootstrap(), rig.target().topic(), s.partitions, s.parallelism));
                say(String.format("%s consume limit: %,.0f events/s", round, produced / limit));
                return limit;
            }
            case "lineflow" -> {
                Cpu cpu = new Cpu(rig.broker());
                LineRows.Run run = rig.rows().lineflow(cpu);
                if (timed) {
                    report.lineflowPerCpuSecond.add(produced / cpu.jvm);
                    report.lineflowPerJobCpuSecond.add(produced / cpu.job);
                    report.brokerPerCpuSecond.add(produced / cpu.broker);
                    report.lineflowExact &= run.exact();
                }
                say(String.format(
                        "%s lineflow job: %,.0f events/s (%.1f s; %.1f CPU-s, %.1f of them the job's threads, %.1f"
                                + " the collector's, %.1f s the JIT compilers'; %,d page faults; the broker %.1f CPU-s)",
                        round,
                        produced / run.seconds(),
                        run.seconds(),
                        cpu.jvm,
                        cpu.job - cpu.gc,
                        cpu.gc,
                        cpu.jit,
                        cpu.faults,
                        cpu.broker));
                return run.seconds();
            }
            case "sql", "sql-dedup" -> {
                boolean dedup = row.equals("sql-dedup");
                LineRows.Run run = rig.rows().sql(dedup);
                if (timed) {
                    (dedup ? report.sqlDedup : report.sql).exact &= run.exact();
                }
                say(String.format(
                        "%s Flink SQL%s: %,.0f events/s (%.1f s)",
                        round, dedup ? " with dedup" : "", produced / run.seconds(), run.seconds()));
                return run.seconds();
            }
            case "other-lineflow", "other-sql" -> {
                boolean sql = row.equals("other-sql");
                LineRows.Run run = rig.other().run(sql ? "sql" : "lineflow");
                if (timed) {
                    if (sql) {
                        report.otherSql.exact &= run.exact();
                    } else {
                        report.otherLineflowExact &= run.exact();
                    }
                }
                say(String.format(
                        "%s %s on Flink %s: %,.0f events/s (%.1f s)",
                        round,
                        sql ? "Flink SQL" : "lineflow job",
                        rig.other().flinkVersion,
                        produced / run.seconds(),
                        run.seconds()));
                return run.seconds();
            }
            default -> throw new IllegalStateException("no row " + row);
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

    /** A timed step. */
    private interface Step {
        Object run() throws Exception;
    }

    private static double time(Step step) throws Exception {
        long t0 = System.nanoTime();
        step.run();
        return (System.nanoTime() - t0) / 1e9;
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
