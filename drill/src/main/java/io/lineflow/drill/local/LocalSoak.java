package io.lineflow.drill.local;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Pause;
import io.lineflow.drill.core.Scenario;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.soak.FaultSchedule;
import io.lineflow.drill.soak.SoakInput;
import io.lineflow.drill.soak.SoakOptions;
import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakReport;
import io.lineflow.drill.soak.SoakVerdicts;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.testing.DeterministicInput;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * {@code make soak}: lineflow's job on a {@link LocalCluster} for a long run, on RocksDB with
 * incremental checkpoints, under a steady input and a fault every few minutes; it samples what
 * could grow, checks the table at every quiet point and at the end, and writes the report.
 */
public final class LocalSoak {
    private static final PrintStream OUT = System.out;
    private static final String TOPIC = "device-events";
    private static final String GROUP = "lineflow";
    private static final int PARTITIONS = 4;
    /** The drill's pace: a 5-minute window of input per second. */
    private static final Duration TIME_PER_WINDOW = Duration.ofSeconds(1);
    /** Shorter than prod's 60 s, so that an hour holds 360 checkpoints to measure. */
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(10);
    /** How long a database outage and a partition last: twice the heartbeat timeout (8 s) and more. */
    private static final Duration OUTAGE = Duration.ofSeconds(20);

    private static final Duration LAG_EVERY = Duration.ofSeconds(2);
    /** How long Flink may take to notice a lost process: the local cluster's 8 s heartbeat timeout, with room. */
    private static final Duration DETECTION = Duration.ofSeconds(30);

    private static final int SAMPLE_EVERY_LAGS = 5; // every 10 s
    /** How long the JobManagers keep a job that has ended (Flink's default: an hour). */
    private static final Duration FINISHED_JOBS_KEPT = Duration.ofMinutes(1);
    /** How long a quiet-point check waits for the closed windows to be exact. */
    private static final Duration CHECK_WAIT = Duration.ofSeconds(90);

    private final LocalDrill.Settings settings;
    private final SoakOptions options;
    /** When the input began (epoch ms): the log's and the report's time 0. */
    private volatile long t0 = System.currentTimeMillis();

    private LocalSoak(LocalDrill.Settings settings, SoakOptions options) {
        this.settings = settings;
        this.options = options;
    }

    /** Runs the soak; true when every verdict passed. */
    public static boolean run(LocalDrill.Settings settings, SoakOptions options) throws Exception {
        return new LocalSoak(settings, options).run();
    }

    private void log(String line) {
        long s = (System.currentTimeMillis() - t0) / 1000;
        OUT.printf("[%d:%02d] %s%n", s / 60, s % 60, line);
    }

    private boolean run() throws Exception {
        Path dir = settings.work;
        deleteRecursively(dir);
        Files.createDirectories(dir);
        int devices = options.devices(TIME_PER_WINDOW);
        long windows = options.duration().toMillis() / TIME_PER_WINDOW.toMillis() + 10;
        // Event time ends a day before now: every event is in the past, whatever the duration.
        long start = (System.currentTimeMillis() - 86_400_000L - windows * TableCheck.WINDOW)
                / TableCheck.WINDOW
                * TableCheck.WINDOW;
        long steadyLag = options.rate() * 3 * CHECKPOINT_INTERVAL.toSeconds();
        OUT.printf(
                "soak: %s at %,d events/s (%d devices × %d pieces per window, a window per %d s), a fault every %s"
                        + " (%s), RocksDB incremental, checkpoint every %d s%n",
                human(options.duration()),
                options.rate(),
                devices,
                SoakOptions.PIECES_PER_WINDOW,
                TIME_PER_WINDOW.toSeconds(),
                human(options.faultEvery()),
                options.faultIds(),
                CHECKPOINT_INTERVAL.toSeconds());
        try (LocalCluster cluster =
                new LocalCluster(dir, settings.classpath, settings.line.flinkClasspath(), settings.drillClasses)) {
            if (options.faults().stream().anyMatch(f -> f.id.startsWith("partition-"))) {
                cluster.enablePartitions();
            }
            // A session cluster keeps the job an upgrade stopped in its JobManagers' memory for an
            // hour (its archived graph, and its metrics in the REST API's store): a step in their
            // live heap that the growth verdict would read as growth. The shipped shape has none
            // (an application cluster's JobManager goes with its job), so a minute here.
            cluster.keepFinishedJobs(FINISHED_JOBS_KEPT);
            // The seventh hour's last step in a JobManager's live heap: a 4 MiB Netty chunk taken
            // for the upgrade's jar upload by a REST thread whose arena had none (the shipped shape
            // uploads no jar: the image holds it).
            cluster.poolRestBuffersInOneArena();
            OUT.println("starting ZooKeeper, Kafka, PostgreSQL, 2 JobManagers, 2 TaskManagers…");
            cluster.start(TOPIC, PARTITIONS);
            List<String> args = new ArrayList<>(cluster.jobArgs(TOPIC, CHECKPOINT_INTERVAL));
            args.addAll(List.of(
                    "--lineflow.kafka.group-id",
                    GROUP,
                    "--state.backend.type",
                    "rocksdb",
                    "--execution.checkpointing.incremental",
                    "true"));
            LocalBackend backend = settings.backend(cluster, args, OUTAGE, false, l -> log(l.strip()));
            String jobId = backend.submit();
            Await.orFail(
                    Duration.ofMinutes(2),
                    Duration.ofMillis(250),
                    "job " + jobId + " running",
                    () -> backend.job().running());
            SoakInput input =
                    new SoakInput(devices, SoakOptions.PIECES_PER_WINDOW, TableCheck.WINDOW, start, PARTITIONS);
            return soak(cluster, backend, input, devices, steadyLag);
        }
    }

    private boolean soak(LocalCluster cluster, LocalBackend backend, SoakInput input, int devices, long steadyLag)
            throws Exception {
        t0 = System.currentTimeMillis();
        SoakRecord record = new SoakRecord(t0, options, devices, steadyLag);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong refused = new AtomicLong();
        Thread producer = new Thread(() -> produce(cluster, input, t0, stop, refused), "soak-producer");
        producer.start();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "soak-sampler");
            t.setDaemon(true);
            return t;
        });
        try (Admin admin = admin(cluster)) {
            HeapProbe heap = new HeapProbe(
                    cluster::flinkProcesses,
                    settings.work,
                    t0 + options.duration().minus(options.trendSpan()).toMillis(),
                    this::log);
            SoakSampler s = new SoakSampler(
                    new LagProbe(backend, admin, TOPIC, PARTITIONS, GROUP),
                    List.of(
                            heap,
                            new RssProbe(cluster::flinkProcesses),
                            new CheckpointProbe(cluster::restAddress, backend::jobId),
                            new RocksDbProbe(settings.work, backend::jobId),
                            new JdbcProbe(backend.database())),
                    SAMPLE_EVERY_LAGS,
                    record);
            sampler.scheduleAtFixedRate(s::tick, 0, LAG_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            log("producing; faults: "
                    + FaultSchedule.of(options.duration(), options.faultEvery(), options.faults())
                            .size());
            List<FaultSchedule.Strike> strikes =
                    FaultSchedule.of(options.duration(), options.faultEvery(), options.faults());
            long quietFrom = t0 + options.duration().minus(options.faultEvery()).toMillis();
            for (int i = 0; i < strikes.size(); i++) {
                FaultSchedule.Strike strike = strikes.get(i);
                Pause.sleep(Math.max(0, t0 + strike.at().toMillis() - System.currentTimeMillis()));
                if (System.currentTimeMillis()
                        > Math.max(quietFrom, t0 + strike.at().toMillis() + 1_000)) {
                    // Recoveries and checks took longer than the schedule gave them: the last
                    // interval stays quiet all the same.
                    log("skipping " + (strikes.size() - i) + " fault(s): behind schedule, into the quiet end");
                    break;
                }
                strike(backend, record, strike.fault());
                long next =
                        i + 1 < strikes.size() ? t0 + strikes.get(i + 1).at().toMillis() : quietFrom;
                quietCheck(backend, input, record, next);
            }
            Pause.sleep(Math.max(0, t0 + options.duration().toMillis() - System.currentTimeMillis()));
            stop.set(true);
            producer.join();
            if (refused.get() > 0) {
                throw new IllegalStateException("Kafka did not accept " + refused.get()
                        + " input records: the expected table is not what was sent");
            }
            log("input ended after " + input.produced() + " windows; waiting for the whole table");
            TableCheck.Observed observed =
                    TableCheck.await(backend.database(), input.expectation(), Duration.ofMinutes(4));
            ScenarioResult result = new ScenarioResult(new Scenario("soak", false, true));
            TableCheck.verify(observed, result, new HashSet<>());
            record.check(new SoakRecord.Check(
                    System.currentTimeMillis(),
                    "end: the whole table",
                    !result.damaged(),
                    result.rowsActual + "/" + result.rowsExpected + " rows, " + result.missing + " missing, "
                            + result.extra + " extra, " + result.wrong + " wrong; rejected_events "
                            + result.rejectionsActual + "; " + observed.waited()
                            + (result.problems.isEmpty() ? "" : "; first: " + result.problems.get(0))));
            sampler.shutdownNow();
            sampler.awaitTermination(30, TimeUnit.SECONDS);
            heap.atEnd(record);
        } finally {
            stop.set(true);
            sampler.shutdownNow();
            sampler.awaitTermination(30, TimeUnit.SECONDS);
        }
        long ended = System.currentTimeMillis();
        List<SoakVerdicts.Verdict> verdicts = SoakVerdicts.judge(record, ended);
        OUT.print(SoakReport.summary(record, verdicts));
        Path html = SoakReport.writeHtml(
                record,
                verdicts,
                ended,
                settings.work,
                String.format(
                        "%s at %,d events/s (%d devices, %d pieces each per 5-minute window, a window of input per"
                                + " second), a fault every %s cycling through %s. Local cluster: ZooKeeper HA with"
                                + " 2 JobManagers, 2 TaskManagers, Kafka and PostgreSQL as processes on loopback;"
                                + " RocksDB with incremental checkpoints every %d s. Steady lag: at most %,d"
                                + " uncommitted records (three checkpoint intervals of input).",
                        human(options.duration()),
                        options.rate(),
                        devices,
                        SoakOptions.PIECES_PER_WINDOW,
                        human(options.faultEvery()),
                        options.faultIds(),
                        CHECKPOINT_INTERVAL.toSeconds(),
                        steadyLag));
        OUT.println("Report: " + html.toAbsolutePath());
        return verdicts.stream().allMatch(SoakVerdicts.Verdict::passed);
    }

    private void strike(LocalBackend backend, SoakRecord record, Fault fault) {
        long at = System.currentTimeMillis();
        log("▶ " + fault.id);
        String error = null;
        try {
            backend.strike(fault);
        } catch (Exception | Error e) {
            error = e.toString();
            log("  ERROR " + e);
        }
        long ended = System.currentTimeMillis();
        SoakRecord.Struck struck = new SoakRecord.Struck(fault.id, at, ended, error);
        record.struck(struck);
        // Steady once a steady sample has been seen and Flink has had the time to notice a lost
        // process (the heartbeat timeout, with room): before that the old attempt looks steady.
        boolean steady = Await.until(
                options.recoveryLimit().multipliedBy(2),
                Duration.ofSeconds(1),
                () -> System.currentTimeMillis() >= ended + DETECTION.toMillis() && record.recovery(struck) != null);
        Long rec = record.recovery(struck);
        log(
                steady
                        ? "  steady again " + SoakVerdicts.seconds(rec == null ? 0 : rec) + " after the fault"
                        : "  not steady within "
                                + options.recoveryLimit().multipliedBy(2).toSeconds() + " s");
    }

    /**
     * Every window closed so far, checked against the expected rows, polled until exact, for at
     * most {@link #CHECK_WAIT} and not past {@code nextFault} (a wrong table stays wrong).
     */
    private void quietCheck(LocalBackend backend, SoakInput input, SoakRecord record, long nextFault) {
        int before = Math.max(0, input.closed() - 1);
        Map<String, Row> expected = input.expectedBefore(before);
        long began = System.currentTimeMillis();
        String[] last = {"not read"};
        Duration wait = Duration.ofMillis(
                Math.max(5_000, Math.min(CHECK_WAIT.toMillis(), nextFault - 5_000 - System.currentTimeMillis())));
        boolean exact = Await.until(wait, Duration.ofSeconds(2), () -> {
            try (Connection c = backend.database().connect()) {
                Map<String, Row> actual = WindowTable.read(c, null, input.windowStart(before) - 1);
                var diff = WindowTable.diff(expected, actual);
                last[0] = diff.size() + " differences" + (diff.isEmpty() ? "" : ", first: " + diff.get(0));
                return diff.isEmpty();
            } catch (SQLException e) {
                last[0] = "database unreachable: " + e.getMessage();
                return false;
            }
        });
        String detail = expected.size() + " rows of windows 0–" + (before - 1)
                + (exact
                        ? ", exact after " + SoakVerdicts.seconds(System.currentTimeMillis() - began)
                        : "; " + last[0]);
        record.check(new SoakRecord.Check(System.currentTimeMillis(), "closed windows", exact, detail));
        log("  table check: " + (exact ? "EXACT, " : "WRONG, ") + detail);
    }

    /** Produces a window of input per {@link #TIME_PER_WINDOW} until stopped, then the watermark ticks. */
    private static void produce(
            LocalCluster cluster, SoakInput input, long t0, AtomicBoolean stop, AtomicLong refused) {
        try (KafkaProducer<byte[], byte[]> p = TableCheck.producer(cluster.bootstrapServers())) {
            while (!stop.get()) {
                long due = t0 + input.produced() * TIME_PER_WINDOW.toMillis();
                long wait = due - System.currentTimeMillis();
                if (wait > 0) {
                    Pause.sleep(wait);
                    continue;
                }
                send(p, input.next(), refused);
            }
            send(p, input.end(), refused);
            p.flush();
        }
    }

    private static void send(KafkaProducer<byte[], byte[]> p, DeterministicInput slice, AtomicLong refused) {
        for (DeterministicInput.Record r : slice.records) {
            p.send(TableCheck.record(TOPIC, r), (m, e) -> {
                if (e != null) {
                    refused.incrementAndGet();
                }
            });
        }
    }

    private static Admin admin(LocalCluster cluster) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000));
    }

    private static String human(Duration d) {
        return d.toSeconds() % 60 == 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
