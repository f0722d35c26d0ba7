package io.lineflow.drill;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.local.LocalDrill;
import io.lineflow.drill.local.LocalScenario;
import io.lineflow.testing.CommandLines;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code make drill}: runs faults on a real cluster and verifies the table after each, plus the
 * negative controls that must be caught. Exits non-zero on any discrepancy or missed control.
 *
 * <pre>
 * --faults tm-kill,jm-failover,...|all|none   (all: the six below; the soak's hard faults,
 *                                        pg-kill, kafka-kill, partition-*, only when named)
 * --points 0.3,0.5,0.7                   injection points, fractions of the input (0.3,0.5,0.7)
 * --controls true|false                  run both negative controls (true)
 * --kubernetes-ha true|false             also jm-failover on Kubernetes HA, real kube-apiserver (false)
 * --windows N --devices N --pieces K     input size (30, 8, 20)
 * --time-per-window D                   pace of the input, in Flink's duration syntax (1 s)
 * </pre>
 */
public final class Drill {
    private Drill() {}

    public static void main(String[] args) throws IOException {
        LocalDrill.Settings settings = LocalDrill.settingsFromSystemProperties();
        List<Fault> faults = Fault.drillDefaults(Backend.Kind.LOCAL);
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
                            ? Fault.drillDefaults(Backend.Kind.LOCAL)
                            : v.equals("none")
                                    ? List.of()
                                    : Arrays.stream(v.split(","))
                                            .map(id -> Fault.byId(Backend.Kind.LOCAL, id))
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
        List<LocalScenario> scenarios = new ArrayList<>();
        for (Fault f : faults) {
            for (double p : points) {
                scenarios.add(LocalScenario.of(f, p));
            }
        }
        if (kubernetesHa) {
            scenarios.add(LocalScenario.jmFailoverOnKubernetesHa());
        }
        if (controls) {
            scenarios.add(LocalScenario.noCheckpointsControl());
            scenarios.add(LocalScenario.additiveSinkControl());
        }
        List<ScenarioResult> results = LocalDrill.run(settings, scenarios);
        System.exit(results.stream().allMatch(ScenarioResult::passed) ? 0 : 1);
    }
}
