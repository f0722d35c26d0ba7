package io.lineflow.drill;

import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.job.LineflowJob;
import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.ExpectedWindows;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs one {@link Scenario} on a fresh {@link LocalCluster} and verifies the table. */
final class ScenarioRunner {
    /** The job's default window: the drill's jobs run at the rules' defaults. */
    static final long WINDOW = Rules.DEFAULT_WINDOW.toMillis();

    static final long T0 = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final String TOPIC = "device-events";
    /** The job's main class: the drill runs the jar a user would upload. */
    private static final String ENTRY_CLASS = LineflowJob.class.getName();

    private static final int PARTITIONS = 4;
    private static final String HA_NAMESPACE = "lineflow-drill";

    /** Input size and pace. */
    static final class Settings {
        int devices = 8;
        int windows = 30;
        int piecesPerWindow = 20;
        /** Wall-clock time to produce one window of input. */
        long millisPerWindow = 1000;

        Path work;
        /** The repository root: scripts/, bin/ and manifests/ for the Kubernetes-HA scenario. */
        Path repo;

        Path jobJar;
        /** The jar the upgrade scenario restores the savepoint with: {@link #jobJar} unless given. */
        Path upgradeJar;

        /** The drill's own classpath: its processes (Kafka, ZooKeeper, the services) run on it. */
        List<String> classpath;
        /** A Flink distribution's lib/: what the JobManagers and TaskManagers run on. */
        List<String> flinkClasspath;

        Path drillClasses;
    }

    private final Settings settings;
    private final Consumer<String> log;
    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(5));

    ScenarioRunner(Settings settings, Consumer<String> log) {
        this.settings = settings;
        this.log = log;
    }

    ScenarioResult run(Scenario scenario) {
        ScenarioResult result = new ScenarioResult(scenario);
        long began = System.currentTimeMillis();
        Path dir = settings.work.resolve(scenario.name.replaceAll("[^a-zA-Z0-9-]", "_"));
        try {
            deleteRecursively(dir);
            Files.createDirectories(dir);
            if (scenario.kubernetesHa) {
                log.accept("  starting etcd and kube-apiserver (RBAC) for Kubernetes HA…");
                try (KubernetesApiServer k8s = KubernetesApiServer.start(settings.repo, dir.resolve("k8s"));
                        LocalCluster cluster = new LocalCluster(
                                dir,
                                settings.classpath,
                                settings.flinkClasspath,
                                settings.drillClasses,
                                HA_NAMESPACE,
                                k8s.namespaceForFlink(HA_NAMESPACE))) {
                    runOn(cluster, scenario, result);
                    log.accept(
                            "  HA ConfigMaps: " + k8s.configMaps(HA_NAMESPACE).replace('\n', ' '));
                }
            } else {
                try (LocalCluster cluster =
                        new LocalCluster(dir, settings.classpath, settings.flinkClasspath, settings.drillClasses)) {
                    runOn(cluster, scenario, result);
                }
            }
        } catch (Exception e) {
            result.error = e.toString();
            log.accept("  ERROR " + e);
        }
        result.durationMillis = System.currentTimeMillis() - began;
        return result;
    }

    private void runOn(LocalCluster cluster, Scenario scenario, ScenarioResult result) throws Exception {
        log.accept(
                scenario.kubernetesHa
                        ? "  starting Kafka, PostgreSQL, 2 JobManagers (Kubernetes HA), 2 TaskManagers…"
                        : "  starting ZooKeeper, Kafka, PostgreSQL, 2 JobManagers, 2 TaskManagers…");
        cluster.startServices();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            EmbeddedKafka.createTopic(admin, TOPIC, PARTITIONS);
        }
        Configuration db = JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", cluster.jdbcUrl(), "--lineflow.jdbc.user", "postgres"},
                Map.of(),
                new Configuration());
        Schema.migrate(db);
        cluster.startFlink();

        List<String> args = new ArrayList<>(List.of(
                "--lineflow.kafka.bootstrap-servers",
                cluster.bootstrapServers(),
                "--lineflow.kafka.topic",
                TOPIC,
                "--lineflow.jdbc.url",
                cluster.jdbcUrl(),
                "--lineflow.jdbc.user",
                "postgres",
                "--execution.checkpointing.interval",
                "1 s",
                "--state.checkpoints.dir",
                cluster.dir().resolve("checkpoints").toUri().toString(),
                "--lineflow.sink.batch-interval",
                "200 ms"));
        args.addAll(scenario.jobArgs);
        String base = cluster.anyRest().orElseThrow();
        String jarId = rest.uploadJar(base, settings.jobJar);
        AtomicReference<String> jobId = new AtomicReference<>(rest.runJar(base, jarId, ENTRY_CLASS, args, 2, null));
        awaitRunning(cluster, jobId.get(), Duration.ofMinutes(2));
        log.accept("  job " + jobId.get() + " running; producing " + settings.windows + " windows of input");

        DeterministicInput input = DeterministicInput.generate(
                settings.devices, settings.windows, settings.piecesPerWindow, WINDOW, T0, PARTITIONS);
        int realRecords = input.records.size();
        input.addWatermarkTicks(T0 + (settings.windows + 1) * WINDOW + WINDOW / 2);
        int injectIndex = (int) Math.round(realRecords * scenario.injectAt);
        CountDownLatch atInjection = new CountDownLatch(1);
        AtomicLong rejectedByKafka = new AtomicLong();
        long total = (long) settings.windows * settings.millisPerWindow;
        Thread producer = new Thread(
                () -> TableCheck.produce(
                        cluster.bootstrapServers(),
                        TOPIC,
                        input,
                        total,
                        injectIndex,
                        atInjection,
                        new CountDownLatch(0),
                        rejectedByKafka),
                "drill-producer");
        producer.start();

        atInjection.await();
        long injectedAt = System.currentTimeMillis();
        log.accept("  injecting " + scenario.fault.id + " after " + injectIndex + " of " + realRecords + " records");
        inject(scenario.fault, cluster, args, jobId);
        timeline(cluster, jobId.get(), injectedAt, result);
        log.accept(String.format(
                "  back RUNNING: %s, first new row after %s",
                result.recoveryMillis == null ? "never stopped" : seconds(result.recoveryMillis),
                result.outputGapMillis == null ? "—" : seconds(result.outputGapMillis)));

        producer.join();
        if (rejectedByKafka.get() > 0) {
            throw new IllegalStateException("Kafka did not accept " + rejectedByKafka.get()
                    + " input records: the expected table is not what was sent");
        }
        Map<String, Row> expected = TableCheck.expected(ExpectedWindows.inputs(input, System.currentTimeMillis()));
        Map<String, Row> actual = TableCheck.awaitTable(cluster.postgres()::connect, expected, Duration.ofMinutes(4));
        TableCheck.verify(cluster.postgres()::connect, input.rejections, expected, actual, result, new HashSet<>());
    }

    private void inject(Fault fault, LocalCluster cluster, List<String> args, AtomicReference<String> jobId)
            throws Exception {
        switch (fault) {
            case TM_KILL:
                log.accept("  kill -9 " + cluster.killTaskManager() + "; starting a replacement");
                cluster.startTaskManager();
                break;
            case JM_FAILOVER:
                log.accept("  kill -9 leading " + cluster.killLeadingJobManager() + "; the standby takes over");
                cluster.startJobManager(); // the replacement pod, now the standby
                break;
            case FULL_RESTART: {
                String oldJob = jobId.get();
                cluster.replaceFlinkWithFreshCluster();
                Path checkpoint =
                        latestCheckpoint(cluster.dir().resolve("checkpoints").resolve(oldJob));
                String base = cluster.anyRest().orElseThrow();
                String jar = rest.uploadJar(base, settings.jobJar);
                jobId.set(rest.runJar(
                        base, jar, ENTRY_CLASS, args, 2, checkpoint.toUri().toString()));
                log.accept("  fresh cluster; job " + jobId.get() + " restored from " + checkpoint.getFileName());
                break;
            }
            case DB_OUTAGE:
                cluster.stopPostgres();
                log.accept("  PostgreSQL stopped for 15 s");
                Pause.sleep(15_000);
                cluster.startPostgres();
                log.accept("  PostgreSQL back");
                break;
            case KAFKA_RESTART:
                cluster.restartKafka();
                log.accept("  Kafka broker restarted");
                break;
            case UPGRADE: {
                String base = cluster.anyRest().orElseThrow();
                String savepoint = rest.stopWithSavepoint(
                        base,
                        jobId.get(),
                        cluster.dir().resolve("savepoints").toUri().toString(),
                        Duration.ofMinutes(2));
                String jar = rest.uploadJar(base, settings.upgradeJar);
                jobId.set(rest.runJar(base, jar, ENTRY_CLASS, args, 4, savepoint));
                log.accept("  stopped with savepoint; job " + jobId.get() + " restored from it at parallelism 4");
                break;
            }
            default:
                throw new IllegalStateException("unhandled fault " + fault);
        }
    }

    /**
     * Measures injection → job RUNNING again with every task running, and the output gap:
     * injection → the first window row written once the job runs again (rows the dying job still
     * wrote do not count). A job that shows no restart within 30 s rode the fault out.
     */
    private void timeline(LocalCluster cluster, String jobId, long injectedAt, ScenarioResult result) {
        long deadline = injectedAt + Duration.ofMinutes(3).toMillis();
        boolean interrupted = false;
        long outputAfter = injectedAt;
        while (System.currentTimeMillis() < deadline) {
            long now = System.currentTimeMillis();
            Optional<JobDetails> s = cluster.anyRest().flatMap(b -> job(b, jobId));
            if (s.isEmpty() || !s.get().running()) {
                interrupted = true;
            } else if (result.recoveryMillis == null && (interrupted || s.get().runningSince() >= injectedAt)) {
                interrupted = true;
                result.recoveryMillis = now - injectedAt;
                outputAfter = Math.max(injectedAt, s.get().runningSince());
            }
            boolean settled = result.recoveryMillis != null || (!interrupted && now - injectedAt > 30_000);
            Long first = settled ? TableCheck.firstRowWrittenAfter(cluster.postgres()::connect, outputAfter) : null;
            if (first != null) {
                result.outputGapMillis = first - injectedAt;
                return;
            }
            Pause.sleep(250);
        }
    }

    private void awaitRunning(LocalCluster cluster, String jobId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (cluster.anyRest()
                    .flatMap(b -> job(b, jobId))
                    .map(JobDetails::running)
                    .orElse(false)) {
                return;
            }
            Pause.sleep(250);
        }
        throw new IllegalStateException("job " + jobId + " not running within " + timeout);
    }

    /** The job as the endpoint reports it; empty while the endpoint cannot tell (restarting, failing over). */
    private Optional<JobDetails> job(String base, String jobId) {
        try {
            return Optional.of(rest.job(base, jobId));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The newest retained checkpoint of a job: {@code chk-N} with the highest N and metadata. */
    static Path latestCheckpoint(Path jobCheckpoints) throws IOException {
        try (Stream<Path> dirs = Files.list(jobCheckpoints)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(
                            p -> Long.parseLong(p.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new IOException("no completed checkpoint under " + jobCheckpoints));
        }
    }

    static String seconds(long millis) {
        return String.format("%.1f s", millis / 1000.0);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                    Files.delete(p);
                }
            }
        }
    }
}
