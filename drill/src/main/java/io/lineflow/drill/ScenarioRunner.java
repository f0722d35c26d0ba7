package io.lineflow.drill;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.event.RejectReason;
import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.job.schema.Schema;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.ExpectedWindows;
import io.lineflow.testing.WindowTable;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs one {@link Scenario} on a fresh {@link LocalCluster} and verifies the table. */
final class ScenarioRunner {
    static final long WINDOW = Duration.ofMinutes(5).toMillis();
    static final long T0 = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    private static final String TOPIC = "device-events";
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
        List<String> classpath;
        Path drillClasses;
    }

    private final Settings settings;
    private final Consumer<String> log;
    private final FlinkRest rest = new FlinkRest();

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
                        LocalCluster cluster = new LocalCluster(dir, settings.classpath, settings.drillClasses,
                                HA_NAMESPACE, k8s.namespaceForFlink(HA_NAMESPACE))) {
                    runOn(cluster, scenario, result);
                    log.accept("  HA ConfigMaps: " + k8s.configMaps(HA_NAMESPACE).replace('\n', ' '));
                }
            } else {
                try (LocalCluster cluster = new LocalCluster(dir, settings.classpath, settings.drillClasses)) {
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
        log.accept(scenario.kubernetesHa
                ? "  starting Kafka, PostgreSQL, 2 JobManagers (Kubernetes HA), 2 TaskManagers…"
                : "  starting ZooKeeper, Kafka, PostgreSQL, 2 JobManagers, 2 TaskManagers…");
        cluster.startServices();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            EmbeddedKafka.createTopic(admin, TOPIC, PARTITIONS);
        }
        Configuration db = JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", cluster.jdbcUrl(), "--lineflow.jdbc.user", "postgres"},
                Map.of(), new Configuration());
        Schema.migrate(db);
        cluster.startFlink();

        List<String> args = new ArrayList<>(List.of(
                "--lineflow.kafka.bootstrap-servers", cluster.bootstrapServers(),
                "--lineflow.kafka.topic", TOPIC,
                "--lineflow.jdbc.url", cluster.jdbcUrl(),
                "--lineflow.jdbc.user", "postgres",
                "--execution.checkpointing.interval", "1 s",
                "--state.checkpoints.dir", cluster.dir().resolve("checkpoints").toUri().toString(),
                "--lineflow.sink.batch-interval", "200 ms"));
        args.addAll(scenario.jobArgs);
        String base = cluster.anyRest().orElseThrow();
        String jarId = rest.uploadJar(base, settings.jobJar);
        AtomicReference<String> jobId = new AtomicReference<>(rest.runJar(base, jarId, args, 2, null));
        awaitRunning(cluster, jobId.get(), Duration.ofMinutes(2));
        log.accept("  job " + jobId.get() + " running; producing " + settings.windows + " windows of input");

        DeterministicInput input = DeterministicInput.generate(
                settings.devices, settings.windows, settings.piecesPerWindow, WINDOW, T0, PARTITIONS);
        int realRecords = input.records.size();
        input.addWatermarkTicks(T0 + (settings.windows + 1) * WINDOW + WINDOW / 2);
        int injectIndex = (int) Math.round(realRecords * scenario.injectAt);
        CountDownLatch atInjection = new CountDownLatch(1);
        AtomicLong rejectedByKafka = new AtomicLong();
        Thread producer = new Thread(() -> produce(cluster, input, injectIndex, atInjection, rejectedByKafka), "drill-producer");
        producer.start();

        atInjection.await();
        long injectedAt = System.currentTimeMillis();
        log.accept("  injecting " + scenario.fault.id + " after " + injectIndex + " of " + realRecords + " records");
        inject(scenario.fault, cluster, args, jobId);
        timeline(cluster, jobId.get(), injectedAt, result);
        log.accept(String.format("  back RUNNING: %s, first new row after %s",
                result.recoveryMillis == null ? "never stopped" : seconds(result.recoveryMillis),
                result.outputGapMillis == null ? "—" : seconds(result.outputGapMillis)));

        producer.join();
        if (rejectedByKafka.get() > 0) {
            throw new IllegalStateException(
                    "Kafka did not accept " + rejectedByKafka.get() + " input records: the expected table is not what was sent");
        }
        Map<String, DeviceWindowStats> expected = ExpectedWindows.of(input.counted, WINDOW);
        Map<String, DeviceWindowStats> actual = awaitTable(cluster, expected);
        verify(cluster, input, expected, actual, result);
    }

    private void produce(LocalCluster cluster, DeterministicInput input, int injectIndex, CountDownLatch atInjection,
            AtomicLong rejectedByKafka) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1); // see DeterministicInput.produce
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        long total = (long) settings.windows * settings.millisPerWindow;
        int n = input.records.size();
        long start = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < n; i++) {
                if (i == injectIndex) {
                    p.flush();
                    atInjection.countDown();
                }
                long due = start + total * i / n;
                long wait = due - System.currentTimeMillis();
                if (wait > 0) {
                    FlinkRest.sleep(wait);
                }
                DeterministicInput.Record r = input.records.get(i);
                p.send(new ProducerRecord<>(TOPIC, r.partition, r.key.getBytes(StandardCharsets.UTF_8), r.value),
                        (metadata, e) -> {
                            if (e != null) {
                                rejectedByKafka.incrementAndGet();
                            }
                        });
            }
            p.flush();
        } finally {
            atInjection.countDown();
        }
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
                Path checkpoint = latestCheckpoint(cluster.dir().resolve("checkpoints").resolve(oldJob));
                String base = cluster.anyRest().orElseThrow();
                String jar = rest.uploadJar(base, settings.jobJar);
                jobId.set(rest.runJar(base, jar, args, 2, checkpoint.toUri().toString()));
                log.accept("  fresh cluster; job " + jobId.get() + " restored from " + checkpoint.getFileName());
                break;
            }
            case DB_OUTAGE:
                cluster.stopPostgres();
                log.accept("  PostgreSQL stopped for 15 s");
                FlinkRest.sleep(15_000);
                cluster.startPostgres();
                log.accept("  PostgreSQL back");
                break;
            case KAFKA_RESTART:
                cluster.restartKafka();
                log.accept("  Kafka broker restarted");
                break;
            case UPGRADE: {
                String base = cluster.anyRest().orElseThrow();
                String savepoint = rest.stopWithSavepoint(base, jobId.get(), cluster.dir().resolve("savepoints").toUri().toString());
                String jar = rest.uploadJar(base, settings.jobJar);
                jobId.set(rest.runJar(base, jar, args, 4, savepoint));
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
            Optional<FlinkRest.JobStatus> s = cluster.anyRest().flatMap(b -> rest.job(b, jobId));
            if (s.isEmpty() || !s.get().running()) {
                interrupted = true;
            } else if (result.recoveryMillis == null && (interrupted || s.get().runningSince >= injectedAt)) {
                interrupted = true;
                result.recoveryMillis = now - injectedAt;
                outputAfter = Math.max(injectedAt, s.get().runningSince);
            }
            boolean settled = result.recoveryMillis != null || (!interrupted && now - injectedAt > 30_000);
            Long first = settled ? firstRowWrittenAfter(cluster, outputAfter) : null;
            if (first != null) {
                result.outputGapMillis = first - injectedAt;
                return;
            }
            FlinkRest.sleep(250);
        }
    }

    private void awaitRunning(LocalCluster cluster, String jobId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (cluster.anyRest().flatMap(b -> rest.job(b, jobId)).map(FlinkRest.JobStatus::running).orElse(false)) {
                return;
            }
            FlinkRest.sleep(250);
        }
        throw new IllegalStateException("job " + jobId + " not running within " + timeout);
    }

    /**
     * Waits until the table is exact, or has stopped changing for 15 s (at least 20 s after the
     * last record): a broken job never becomes exact, and waiting for ever would prove nothing.
     */
    private Map<String, DeviceWindowStats> awaitTable(LocalCluster cluster, Map<String, DeviceWindowStats> expected)
            throws InterruptedException {
        long start = System.currentTimeMillis();
        long lastChange = start;
        String lastFingerprint = "";
        Map<String, DeviceWindowStats> actual = Map.of();
        while (System.currentTimeMillis() - start < Duration.ofMinutes(4).toMillis()) {
            try (Connection c = cluster.postgres().connect()) {
                actual = onlyClosedWindows(WindowTable.read(c));
                if (WindowTable.diff(expected, actual).isEmpty()) {
                    return actual;
                }
                String fingerprint = actual.size() + "/" + newestRowUpdate(cluster);
                if (!fingerprint.equals(lastFingerprint)) {
                    lastFingerprint = fingerprint;
                    lastChange = System.currentTimeMillis();
                }
            } catch (SQLException e) {
                lastChange = System.currentTimeMillis(); // the database is not back yet
            }
            long now = System.currentTimeMillis();
            if (now - lastChange > 15_000 && now - start > 20_000) {
                return actual;
            }
            Thread.sleep(1000);
        }
        return actual;
    }

    /** The watermark ticks' own rows are not part of the expected table. */
    private static Map<String, DeviceWindowStats> onlyClosedWindows(Map<String, DeviceWindowStats> rows) {
        Map<String, DeviceWindowStats> out = new TreeMap<>(rows);
        out.keySet().removeIf(k -> k.startsWith("tick-"));
        return out;
    }

    private void verify(LocalCluster cluster, DeterministicInput input, Map<String, DeviceWindowStats> expected,
            Map<String, DeviceWindowStats> actual, ScenarioResult result) throws SQLException {
        List<String> problems = WindowTable.diff(expected, actual);
        result.problems.addAll(problems);
        result.missing = (int) problems.stream().filter(p -> p.startsWith("MISSING")).count();
        result.extra = (int) problems.stream().filter(p -> p.startsWith("EXTRA")).count();
        result.wrong = (int) problems.stream().filter(p -> p.startsWith("WRONG")).map(p -> p.split(" ")[1]).distinct().count();
        result.rowsExpected = expected.size();
        result.rowsActual = actual.size();
        expected.values().forEach(r -> result.piecesExpected.merge(r.windowStart, r.piecesProduced, Long::sum));
        actual.values().forEach(r -> result.piecesActual.merge(r.windowStart, r.piecesProduced, Long::sum));
        try (Connection c = cluster.postgres().connect()) {
            Map<RejectReason, Long> rejected = WindowTable.rejections(c);
            result.rejectionsExpected = input.rejections.toString();
            result.rejectionsActual = rejected.toString();
            if (!rejected.equals(input.rejections)) {
                result.problems.add("REJECTED expected " + input.rejections + ", got " + rejected);
            }
        }
    }

    private static Long firstRowWrittenAfter(LocalCluster cluster, long after) {
        try (Connection c = cluster.postgres().connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT min(updated_at) FROM device_window_stats WHERE updated_at > ?")) {
            s.setTimestamp(1, new Timestamp(after));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getTimestamp(1) == null ? null : rs.getTimestamp(1).getTime();
            }
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }

    private static Long newestRowUpdate(LocalCluster cluster) {
        try (Connection c = cluster.postgres().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT max(updated_at) FROM device_window_stats")) {
            rs.next();
            return rs.getTimestamp(1) == null ? null : rs.getTimestamp(1).getTime();
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }

    /** The newest retained checkpoint of a job: {@code chk-N} with the highest N and metadata. */
    static Path latestCheckpoint(Path jobCheckpoints) throws IOException {
        try (Stream<Path> dirs = Files.list(jobCheckpoints)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(p -> Long.parseLong(p.getFileName().toString().substring(4))))
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
