package io.lineflow.drill;

import io.lineflow.testing.CommandLines;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code make drill}: runs faults on a real cluster and verifies the table after each, plus the
 * negative controls that must be caught. Exits non-zero on any discrepancy or missed control.
 *
 * <pre>
 * --faults tm-kill,jm-failover,...|all|none   (all)
 * --points 0.3,0.5,0.7                   injection points, fractions of the input (0.3,0.5,0.7)
 * --controls true|false                  run both negative controls (true)
 * --kubernetes-ha true|false             also jm-failover on Kubernetes HA, real kube-apiserver (false)
 * --windows N --devices N --pieces K     input size (30, 8, 20)
 * --time-per-window D                   pace of the input, in Flink's duration syntax (1 s)
 * </pre>
 */
public final class Drill {
    private static final PrintStream OUT = System.out;

    private Drill() {}

    public static void main(String[] args) throws IOException {
        ScenarioRunner.Settings settings = settingsFromSystemProperties();
        List<Fault> faults = Arrays.asList(Fault.values());
        List<Double> points = List.of(0.3, 0.5, 0.7);
        boolean controls = true;
        boolean kubernetesHa = false;
        Map<String, String> o = CommandLines.parse(
                List.of(args),
                List.of(
                        "faults",
                        "points",
                        "controls",
                        "kubernetes-ha",
                        "windows",
                        "devices",
                        "pieces",
                        "time-per-window"));
        for (Map.Entry<String, String> e : o.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "faults" ->
                    faults = v.equals("all")
                            ? Arrays.asList(Fault.values())
                            : v.equals("none")
                                    ? List.of()
                                    : Arrays.stream(v.split(","))
                                            .map(Fault::byId)
                                            .toList();
                case "points" ->
                    points =
                            Arrays.stream(v.split(",")).map(Double::parseDouble).toList();
                case "controls" -> controls = Boolean.parseBoolean(v);
                case "kubernetes-ha" -> kubernetesHa = Boolean.parseBoolean(v);
                case "windows" -> settings.windows = Integer.parseInt(v);
                case "devices" -> settings.devices = Integer.parseInt(v);
                case "pieces" -> settings.piecesPerWindow = Integer.parseInt(v);
                case "time-per-window" ->
                    settings.millisPerWindow =
                            CommandLines.duration(e.getKey(), v).toMillis();
                default -> throw new IllegalStateException("option --" + e.getKey() + " is declared but not read");
            }
        }
        List<Scenario> scenarios = new ArrayList<>();
        for (Fault f : faults) {
            for (double p : points) {
                scenarios.add(Scenario.of(f, p));
            }
        }
        if (kubernetesHa) {
            scenarios.add(Scenario.jmFailoverOnKubernetesHa());
        }
        if (controls) {
            scenarios.add(Scenario.noCheckpointsControl());
            scenarios.add(Scenario.additiveSinkControl());
        }
        List<ScenarioResult> results = run(settings, scenarios);
        System.exit(results.stream().allMatch(ScenarioResult::passed) ? 0 : 1);
    }

    /** Runs the scenarios one after another and writes the report. */
    static List<ScenarioResult> run(ScenarioRunner.Settings settings, List<Scenario> scenarios) throws IOException {
        Files.createDirectories(settings.work);
        ScenarioRunner runner = new ScenarioRunner(settings, OUT::println);
        List<ScenarioResult> results = new ArrayList<>();
        for (Scenario s : scenarios) {
            OUT.printf("%n▶ %s (%d/%d)%n", s.name, results.size() + 1, scenarios.size());
            ScenarioResult r = runner.run(s);
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
    static ScenarioRunner.Settings settingsFromSystemProperties() throws IOException {
        ScenarioRunner.Settings s = new ScenarioRunner.Settings();
        s.jobJar = Path.of(required("drill.job.jar"));
        if (!Files.exists(s.jobJar)) {
            throw new IllegalStateException("job jar " + s.jobJar + " not found: build it first (mvn -pl job package)");
        }
        // Another build's jar to upgrade to (e.g. from an older release's savepoint to this one).
        s.upgradeJar = Path.of(System.getProperty("drill.upgrade.jar", s.jobJar.toString()));
        if (!Files.exists(s.upgradeJar)) {
            throw new IllegalStateException("upgrade jar " + s.upgradeJar + " not found");
        }
        Path classpathFile = Path.of(required("drill.classpath.file"));
        s.classpath = readClasspath(classpathFile);
        // Written beside it by the same build (drill/pom.xml, execution flink-classpath).
        s.flinkClasspath = readClasspath(classpathFile.resolveSibling("flink.classpath"));
        s.drillClasses = Path.of(required("drill.classes"));
        s.work = Path.of(System.getProperty("drill.work", "target/drill")).toAbsolutePath();
        s.repo =
                Path.of(System.getProperty("drill.repo", "..")).toAbsolutePath().normalize();
        return s;
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
}
