package io.lineflow.drill.local;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.ScenarioRun;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.core.Timeline;
import io.lineflow.testing.DeterministicInput;

import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs each {@link LocalScenario} on a fresh {@link LocalCluster} and verifies the table. */
public final class LocalDrill {
    private static final PrintStream OUT = System.out;
    private static final String TOPIC = "device-events";
    private static final int PARTITIONS = 4;
    private static final String HA_NAMESPACE = "lineflow-drill";
    private static final Duration DB_OUTAGE = Duration.ofSeconds(15);
    private static final Timeline.Pace PACE =
            new Timeline.Pace(Duration.ofMillis(250), Duration.ofMinutes(3), Duration.ofMinutes(3));

    /** Input size and pace, and the paths the build passes in. */
    public static final class Settings {
        public int devices = 8;
        public int windows = 30;
        public int piecesPerWindow = 20;
        /** Wall-clock time to produce one window of input. */
        public long millisPerWindow = 1000;

        Path work;
        /** The repository root: scripts/, bin/ and manifests/ for the Kubernetes-HA scenario. */
        Path repo;

        /** This build's Flink line: what its JobManagers and TaskManagers run, and the job jar. */
        FlinkLine line;
        /** The line {@code major-upgrade} goes to, built beside this one; null when not built. */
        FlinkLine nextLine;
        /** The jar the upgrade scenario restores the savepoint with: this line's unless given. */
        Path upgradeJar;

        /** The drill's own classpath: its processes (Kafka, ZooKeeper, the services) run on it. */
        List<String> classpath;

        Path drillClasses;

        /** The backend of a run on {@code cluster}: this build's lines and upgrade jar, the rest as given. */
        LocalBackend backend(
                LocalBackend.Cluster cluster,
                List<String> args,
                Duration outage,
                boolean savepointDropped,
                Consumer<String> log) {
            return new LocalBackend(cluster, line, nextLine, upgradeJar, args, outage, savepointDropped, log);
        }
    }

    private final Settings settings;
    private final Consumer<String> log;

    LocalDrill(Settings settings, Consumer<String> log) {
        this.settings = settings;
        this.log = log;
    }

    /** Runs the scenarios one after another and writes the report. */
    public static List<ScenarioResult> run(Settings settings, List<LocalScenario> scenarios) throws IOException {
        Files.createDirectories(settings.work);
        LocalDrill drill = new LocalDrill(settings, OUT::println);
        List<ScenarioResult> results = new ArrayList<>();
        for (LocalScenario s : scenarios) {
            OUT.printf("%n▶ %s (%d/%d)%n", s.name(), results.size() + 1, scenarios.size());
            ScenarioResult r = drill.run(s);
            OUT.println("  → " + r.verdict());
            results.add(r);
        }
        OUT.print(DrillReport.summary(results));
        OUT.println("Report: "
                + DrillReport.writeHtml(
                                results,
                                settings.work,
                                "Local: real Kafka and PostgreSQL, Flink as separate JobManager and TaskManager processes with "
                                        + "ZooKeeper HA (one scenario on Kubernetes HA). Recovery is the time from the fault to the job "
                                        + "RUNNING again with every task running, as Flink's REST API reports it.")
                        .toAbsolutePath());
        return results;
    }

    /** Paths the build passes in: the job jar, the classpath file, the drill's classes. */
    public static Settings settingsFromSystemProperties() throws IOException {
        Settings s = new Settings();
        Path jobJar = existing(Path.of(required("drill.job.jar")), "build it first (mvn -pl job package)");
        Path classpathFile = Path.of(required("drill.classpath.file"));
        s.classpath = readClasspath(classpathFile);
        // Written beside it by the same build (drill/pom.xml, execution flink-classpath).
        s.line = new FlinkLine(
                EnvironmentInformation.getVersion(),
                readClasspath(classpathFile.resolveSibling("flink.classpath")),
                jobJar);
        // Built by drill/pom.xml's next-line-build, from this same tree; without it (skipped, or
        // on the newest line) only the faults that change the line cannot run, and they say so.
        String next = System.getProperty("drill.next-line", "");
        Path nextClasspath = Path.of(System.getProperty("drill.next-line.classpath.file", ""));
        Path nextJar = Path.of(System.getProperty("drill.next-line.job.jar", ""));
        if (!next.isEmpty() && Files.isRegularFile(nextClasspath) && Files.isRegularFile(nextJar)) {
            s.nextLine = new FlinkLine(next, readClasspath(nextClasspath), nextJar);
        }
        // Another build's jar to upgrade to (e.g. from an older release's savepoint to this one).
        s.upgradeJar = existing(Path.of(System.getProperty("drill.upgrade.jar", jobJar.toString())), "");
        s.drillClasses = Path.of(required("drill.classes"));
        s.work = Path.of(System.getProperty("drill.work", "target/drill")).toAbsolutePath();
        s.repo =
                Path.of(System.getProperty("drill.repo", "..")).toAbsolutePath().normalize();
        return s;
    }

    private static Path existing(Path file, String hint) {
        if (!Files.exists(file)) {
            throw new IllegalStateException(file + " not found" + (hint.isEmpty() ? "" : ": " + hint));
        }
        return file;
    }

    private static List<String> readClasspath(Path file) throws IOException {
        return Arrays.asList(Files.readString(file).trim().split(":"));
    }

    private static String required(String property) {
        String v = System.getProperty(property);
        if (v == null) {
            throw new IllegalStateException("system property " + property + " is not set (run through make drill)");
        }
        return v;
    }

    ScenarioResult run(LocalScenario scenario) {
        ScenarioResult result = new ScenarioResult(scenario.scenario());
        long began = System.currentTimeMillis();
        Path dir = settings.work.resolve(scenario.name().replaceAll("[^a-zA-Z0-9-]", "_"));
        try {
            deleteRecursively(dir);
            Files.createDirectories(dir);
            if (scenario.kubernetesHa()) {
                log.accept("  starting etcd and kube-apiserver (RBAC) for Kubernetes HA…");
                try (KubernetesApiServer k8s = KubernetesApiServer.start(settings.repo, dir.resolve("k8s"));
                        LocalCluster cluster = new LocalCluster(
                                dir,
                                settings.classpath,
                                settings.line.flinkClasspath(),
                                settings.drillClasses,
                                HA_NAMESPACE,
                                k8s.namespaceForFlink(HA_NAMESPACE))) {
                    runOn(cluster, scenario, result);
                    log.accept(
                            "  HA ConfigMaps: " + k8s.configMaps(HA_NAMESPACE).replace('\n', ' '));
                }
            } else {
                try (LocalCluster cluster = new LocalCluster(
                        dir, settings.classpath, settings.line.flinkClasspath(), settings.drillClasses)) {
                    if (scenario.fault().id.startsWith("partition-")) {
                        cluster.enablePartitions();
                    }
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

    private void runOn(LocalCluster cluster, LocalScenario scenario, ScenarioResult result) throws Exception {
        log.accept(
                scenario.kubernetesHa()
                        ? "  starting Kafka, PostgreSQL, 2 JobManagers (Kubernetes HA), 2 TaskManagers…"
                        : "  starting ZooKeeper, Kafka, PostgreSQL, 2 JobManagers, 2 TaskManagers…");
        cluster.start(TOPIC, PARTITIONS);

        List<String> args = new ArrayList<>(cluster.jobArgs(TOPIC, Duration.ofSeconds(1)));
        args.addAll(scenario.jobArgs());
        LocalBackend backend = settings.backend(cluster, args, DB_OUTAGE, scenario.savepointDropped(), log);
        String jobId = backend.submit();
        if (!Await.until(
                Duration.ofMinutes(2),
                Duration.ofMillis(250),
                () -> backend.job().running())) {
            throw new IllegalStateException("job " + jobId + " not running within " + Duration.ofMinutes(2));
        }
        log.accept("  job " + jobId + " running; producing " + settings.windows + " windows of input");

        DeterministicInput input = DeterministicInput.generate(
                settings.devices,
                settings.windows,
                settings.piecesPerWindow,
                TableCheck.WINDOW,
                TableCheck.T0,
                PARTITIONS);
        int injectIndex = (int) Math.round(input.records.size() * scenario.injectAt());
        input.addWatermarkTicks(TableCheck.T0 + (settings.windows + 1) * TableCheck.WINDOW + TableCheck.WINDOW / 2);
        ScenarioRun.Plan plan = new ScenarioRun.Plan(
                input,
                (long) settings.windows * settings.millisPerWindow,
                injectIndex,
                false,
                PACE,
                () -> backend.strike(scenario.fault()));
        new ScenarioRun(backend, cluster.bootstrapServers(), TOPIC, Duration.ofMinutes(4), log)
                .run(scenario.name(), plan, new ScenarioRun.Table(), result);
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
