package io.lineflow.drill.local;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Pause;
import io.lineflow.drill.core.Scenario;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.soak.ClassHistogram;
import io.lineflow.drill.soak.FaultSchedule;
import io.lineflow.drill.soak.Recovery;
import io.lineflow.drill.soak.SoakInput;
import io.lineflow.drill.soak.SoakOptions;
import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakReport;
import io.lineflow.drill.soak.SoakVerdicts;
import io.lineflow.flinkrest.CheckpointStats;
import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.testing.DeterministicInput;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Collectors;
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
    /** The live heap of every Flink process every 12 samples (2 min): each measure is a full GC. */
    private static final int HEAP_EVERY_SAMPLES = 12;
    /** The classloaders Flink makes for a job's jar, one per job and process that runs it. */
    private static final Set<String> JOB_CLASSLOADERS = Set.of(
            "org.apache.flink.util.ChildFirstClassLoader",
            "org.apache.flink.util.FlinkUserCodeClassLoaders$ParentFirstClassLoader");
    /** How long the JobManagers keep a job that has ended (Flink's default: an hour). */
    private static final Duration FINISHED_JOBS_KEPT = Duration.ofMinutes(1);
    /** How long the end waits for a JVM's threads to leave the compiled code it set aside. */
    private static final Duration DISCARD_WAIT = Duration.ofSeconds(30);
    /** How many of the classes that grew most the end of the soak names per JVM. */
    private static final int GREW_SHOWN = 5;
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
                new LocalCluster(dir, settings.classpath, settings.flinkClasspath, settings.drillClasses)) {
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
                    "--state.backend.incremental",
                    "true"));
            LocalBackend backend =
                    new LocalBackend(cluster, settings.jobJar, settings.upgradeJar, args, OUTAGE, l -> log(l.strip()));
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
            Sampler s = new Sampler(cluster, backend, admin, record);
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
            s.atEnd();
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

    /**
     * Whether the sample {@code index} (one every 10 s from the start) counts the heap: every
     * {@link #HEAP_EVERY_SAMPLES}, half a period after the faults' phase. Faults every 2
     * minutes (or a multiple) then fall a minute before a count, not on it, and the heap
     * verdict, which leaves out the counts taken during a recovery, keeps them.
     */
    static boolean countsHeap(int index) {
        return (index + HEAP_EVERY_SAMPLES / 2) % HEAP_EVERY_SAMPLES == 0;
    }

    /** Takes the samples: the lag and the job's state every tick, the rest every {@link #SAMPLE_EVERY_LAGS}. */
    private final class Sampler {
        private final LocalCluster cluster;
        private final LocalBackend backend;
        private final Admin admin;
        private final SoakRecord record;
        private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(5));
        private int ticks;
        private int samples;

        Sampler(LocalCluster cluster, LocalBackend backend, Admin admin, SoakRecord record) {
            this.cluster = cluster;
            this.backend = backend;
            this.admin = admin;
            this.record = record;
        }

        void tick() {
            try {
                long now = System.currentTimeMillis();
                Backend.RunState job = backend.job();
                record.lag(new Recovery.LagSample(now, job.running(), job.runningSince(), lag()));
                if (ticks++ % SAMPLE_EVERY_LAGS == 0) {
                    sample(now);
                }
            } catch (RuntimeException e) {
                // A sample that cannot be taken now is missing from the charts, not fatal.
            }
        }

        private Long lag() {
            try {
                List<TopicPartition> tps = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    tps.add(new TopicPartition(TOPIC, p));
                }
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                tps.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
                long end = admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS).values().stream()
                        .mapToLong(i -> i.offset())
                        .sum();
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get(5, TimeUnit.SECONDS);
                long done = committed.values().stream()
                        .filter(o -> o != null)
                        .mapToLong(OffsetAndMetadata::offset)
                        .sum();
                return end - done;
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }
        }

        /**
         * The last measure of every live JVM, once the table is checked: its live heap and job
         * classloaders go in the record (the verdicts judge the very end); what grew most since
         * the first histogram in the growth verdicts' span is logged. A JVM that holds more than
         * one job classloader is asked to set its compiled code aside and counted again (the
         * verdict judges that count: {@link CompiledCode} says why); if it still holds more than
         * one, it leaves a heap dump ({@code <process>.hprof}, live objects only) in the work
         * folder, from which the holder can be found.
         */
        void atEnd() {
            long now = System.currentTimeMillis();
            for (FlinkProcesses.FlinkProcess p : cluster.flinkProcesses()) {
                if (!p.alive()) {
                    continue;
                }
                String histogram = histogram(p, now);
                if (histogram == null) {
                    continue;
                }
                ClassHistogram.liveBytes(histogram)
                        .ifPresent(bytes -> record.add(SoakVerdicts.HEAP, "bytes", p.name(), now, bytes));
                long loaders =
                        ClassHistogram.instances(histogram, JOB_CLASSLOADERS).orElse(0);
                record.add(SoakVerdicts.LOADERS, "classloaders", p.name(), now, loaders);
                try {
                    String first = Files.readString(firstHistogram(p));
                    List<ClassHistogram.Growth> grew = ClassHistogram.growth(first, histogram, GREW_SHOWN);
                    log(p.name() + " grew most in: "
                            + (grew.isEmpty()
                                    ? "nothing"
                                    : grew.stream()
                                            .map(g -> g.className() + " " + SoakVerdicts.human(g.bytes()) + " ("
                                                    + (g.instances() >= 0 ? "+" : "") + g.instances() + ")")
                                            .collect(Collectors.joining(", "))));
                } catch (IOException e) {
                    // no histogram of it in the span: it started later
                }
                if (loaders > 1) {
                    long held = loaders;
                    loaders = afterDiscardingCompiledCode(p, loaders);
                    record.add(SoakVerdicts.LOADERS, "classloaders", p.name(), System.currentTimeMillis(), loaders);
                    log(p.name() + " held " + held + " job classloaders; " + loaders
                            + " once its compiled code was set aside");
                }
                if (loaders > 1) {
                    Path dump = settings.work.resolve(p.name() + ".hprof").toAbsolutePath();
                    String answer = jdkTool(
                            dump.resolveSibling(p.name() + "-heap-dump.txt"),
                            "jcmd",
                            pid(p),
                            "GC.heap_dump",
                            dump.toString());
                    log(p.name() + " holds " + loaders + " job classloaders: "
                            + (Files.isRegularFile(dump) ? "heap dump " + dump : "no heap dump (" + answer + ")"));
                }
            }
        }

        /**
         * The job classloaders a JVM holds once its JIT-compiled code is set aside ({@link
         * CompiledCode}): the compiled frames on its threads' stacks are deoptimized as each thread
         * returns to them, so the count is polled for up to {@link #DISCARD_WAIT}.
         */
        private long afterDiscardingCompiledCode(FlinkProcesses.FlinkProcess p, long held) {
            try {
                CompiledCode.discard(p.pid(), settings.work);
            } catch (IOException e) {
                log(p.name() + ": " + e.getMessage());
                return held;
            }
            long[] now = {held};
            Await.until(DISCARD_WAIT, Duration.ofSeconds(5), () -> {
                String h = histogram(p, System.currentTimeMillis());
                if (h != null) {
                    now[0] = ClassHistogram.instances(h, JOB_CLASSLOADERS).orElse(now[0]);
                }
                return now[0] <= 1;
            });
            return now[0];
        }

        private void sample(long now) {
            int index = samples++;
            boolean measureHeap = countsHeap(index);
            boolean heapNext = countsHeap(index + 1);
            for (FlinkProcesses.FlinkProcess p : cluster.flinkProcesses()) {
                if (!p.alive()) {
                    continue;
                }
                if (heapNext && p.name().startsWith("taskmanager")) {
                    // A sample before the heap's: the compiled code of Flink's loops may still refer
                    // to the classes of a job that has left (CompiledCode); set aside now, the loops
                    // go on interpreted and what they call is compiled again before the heap count.
                    try {
                        CompiledCode.discard(p.pid(), settings.work);
                    } catch (IOException e) {
                        // measured as it is
                    }
                }
                String histogram = measureHeap ? histogram(p, now) : null;
                if (histogram != null) {
                    ClassHistogram.liveBytes(histogram)
                            .ifPresent(bytes -> record.add(SoakVerdicts.HEAP, "bytes", p.name(), now, bytes));
                    ClassHistogram.instances(histogram, JOB_CLASSLOADERS)
                            .ifPresent(n -> record.add(SoakVerdicts.LOADERS, "classloaders", p.name(), now, n));
                }
                Long rss = rss(p.pid());
                if (rss != null) {
                    record.add(SoakVerdicts.RSS, "bytes", p.name(), now, rss);
                }
            }
            String jobId = backend.jobId();
            cluster.restAddress().ifPresent(base -> {
                try {
                    CheckpointStats.Checkpoint c =
                            rest.checkpoints(base, jobId).latest().completed();
                    if (c != null) {
                        record.add(SoakVerdicts.CHECKPOINT_SIZE, "bytes", SoakVerdicts.FULL, now, c.stateSize());
                        record.add(
                                SoakVerdicts.CHECKPOINT_SIZE,
                                "bytes",
                                "incremental (written)",
                                now,
                                c.checkpointedSize());
                        record.add(SoakVerdicts.CHECKPOINT_DURATION, "ms", "end to end", now, c.endToEndDuration());
                    }
                } catch (IOException e) {
                    // no statistics while the job restarts
                }
            });
            Path workingFiles = settings.work.resolve("rocksdb");
            long[] local = sizeAndCount(workingFiles, f -> true);
            // Uploaded whole with every incremental checkpoint: bounded by the job's options factory.
            long[] manifests =
                    sizeAndCount(workingFiles, f -> f.getFileName().toString().startsWith("MANIFEST-"));
            long[] retained = sizeAndCount(settings.work.resolve("checkpoints").resolve(jobId), f -> true);
            record.add(SoakVerdicts.ROCKSDB_BYTES, "bytes", "TaskManagers' working files", now, local[0]);
            record.add(SoakVerdicts.ROCKSDB_BYTES, "bytes", "of them MANIFEST files", now, manifests[0]);
            record.add(SoakVerdicts.ROCKSDB_BYTES, "bytes", "retained checkpoints of the job", now, retained[0]);
            record.add(SoakVerdicts.ROCKSDB_FILES, "files", "TaskManagers' working files", now, local[1]);
            record.add(SoakVerdicts.ROCKSDB_FILES, "files", "retained checkpoints of the job", now, retained[1]);
            try (Connection c = backend.database().connect();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity"
                            + " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
                rs.next();
                record.add(SoakVerdicts.JDBC, "connections", "besides the soak's own", now, rs.getInt(1));
            } catch (SQLException | RuntimeException e) {
                // the database is down or cut off: no sample
            }
        }

        /**
         * What is live in a JVM: {@code jcmd <pid> GC.class_histogram} collects the whole heap and
         * counts what is left by class, a pause of a few tens of milliseconds. Its output stays in
         * the work folder to show what a growing heap holds: the latest per process ({@code
         * <process>-histogram.txt}) and the first in the growth verdicts' span ({@code
         * <process>-histogram-first.txt}). Null when the JVM does not answer within 30 s.
         */
        private String histogram(FlinkProcesses.FlinkProcess p, long now) {
            Path out = settings.work.resolve(p.name() + "-histogram.txt");
            OptionalLong before = fullCollections(p);
            String histogram = jdkTool(out, "jcmd", pid(p), "GC.class_histogram");
            if (histogram != null
                    && before.isPresent()
                    && fullCollections(p).orElse(Long.MAX_VALUE) <= before.getAsLong()) {
                // Its full collection was skipped (ClassHistogram.fullCollections): garbage counted.
                return null;
            }
            if (histogram != null
                    && ClassHistogram.liveBytes(histogram).isPresent()
                    && now >= t0 + options.duration().minus(options.trendSpan()).toMillis()
                    && !Files.exists(firstHistogram(p))) {
                try {
                    Files.copy(out, firstHistogram(p));
                } catch (IOException e) {
                    // no growth list for this process
                }
            }
            return histogram;
        }

        /** How many full collections the JVM has made ({@code jstat -gc}); empty when it does not answer. */
        private OptionalLong fullCollections(FlinkProcesses.FlinkProcess p) {
            String out = jdkTool(settings.work.resolve(p.name() + "-jstat.txt"), "jstat", "-gc", pid(p));
            return out == null ? OptionalLong.empty() : ClassHistogram.fullCollections(out);
        }

        private Path firstHistogram(FlinkProcesses.FlinkProcess p) {
            return settings.work.resolve(p.name() + "-histogram-first.txt");
        }

        private static String pid(FlinkProcesses.FlinkProcess p) {
            return String.valueOf(p.pid());
        }

        /** Runs a JDK tool ({@code jcmd}, {@code jstat}) into a file and returns what it printed; null when it took over 30 s. */
        private String jdkTool(Path out, String tool, String... args) {
            List<String> line = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", tool).toString()));
            line.addAll(List.of(args));
            try {
                Process run = new ProcessBuilder(line)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
                if (!run.waitFor(30, TimeUnit.SECONDS)) {
                    run.destroyForcibly();
                    return null;
                }
                return Files.readString(out);
            } catch (IOException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        private static Long rss(long pid) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // gone
            }
            return null;
        }

        private static long[] sizeAndCount(Path dir, Predicate<Path> which) {
            long[] out = new long[2];
            if (!Files.isDirectory(dir)) {
                return out;
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(f -> Files.isRegularFile(f) && which.test(f)).forEach(f -> {
                    try {
                        out[0] += Files.size(f);
                        out[1]++;
                    } catch (IOException e) {
                        // deleted while walked
                    }
                });
            } catch (IOException | RuntimeException e) {
                // a folder deleted while walked
            }
            return out;
        }
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
