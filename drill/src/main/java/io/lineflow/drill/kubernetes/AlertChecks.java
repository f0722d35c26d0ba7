package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The alerts a scenario must raise and clear, watched at the e2e Alertmanager ({@link AlertWatch})
 * and judged by {@link AlertWatch#problems}.
 *
 * @param deadline from a scenario's end until the alerts it must raise have fired (rule {@code
 *     for}, scrapes, evaluation)
 * @param clear from a healthy scenario's end until every alert but the restart's has cleared
 * @param resolve from the last healthy scenario's end until every alert has resolved
 */
record AlertChecks(Duration deadline, Duration clear, Duration resolve, Consumer<String> log) {
    /**
     * The e2e stack's: the restart alert looks back 10 min (LineflowJobRestarted), plus its 30 s
     * steps, rule evaluation and the scrapes, before everything has resolved.
     */
    static AlertChecks of(Consumer<String> log) {
        return new AlertChecks(Duration.ofMinutes(4), Duration.ofMinutes(3), Duration.ofMinutes(12), log);
    }

    /**
     * The alerts of {@code scenario}, once those it must raise had their time to fire and, after a
     * healthy scenario, the rest theirs to clear. A control that fails here is an error, not
     * damage caught.
     */
    void raised(KubernetesScenario scenario, AlertWatch alerts, ScenarioResult result) {
        for (String alert : scenario.raises()) {
            alerts.awaitSeen(alert, deadline);
        }
        Set<String> seen = alerts.seen();
        Set<String> left =
                scenario.isControl() ? Set.of() : alerts.awaitOnly(Set.of(KubernetesScenario.JOB_RESTARTED), clear);
        List<String> problems = AlertWatch.problems(scenario, alerts.atStart(), seen, left, deadline, clear);
        problems.forEach(p -> log.accept(scenario.id() + ": " + p));
        if (scenario.isControl()) {
            if (!problems.isEmpty() && result.error == null) {
                result.error = String.join("; ", problems);
            }
        } else {
            result.problems.addAll(problems);
        }
    }

    /**
     * Once the faults stop, every alert resolves: the restart alert raised by the scenarios'
     * restores clears ten minutes after the last one, and nothing else is left firing. Checked
     * after the last healthy scenario of a run (a control leaves its damage, and its alert).
     */
    void resolved(AlertWatch alerts, ScenarioResult result) {
        long from = System.currentTimeMillis();
        Set<String> left = alerts.awaitOnly(Set.of(), resolve);
        String took = DrillReport.seconds(System.currentTimeMillis() - from);
        if (left.isEmpty()) {
            result.monitoring.add("every alert resolved " + took + " after the last healthy scenario's checks");
            log.accept("  every alert resolved " + took + " after the last healthy scenario's checks");
        } else {
            result.problems.add(
                    "ALERT still firing " + resolve.toMinutes() + " min after the last healthy scenario: " + left);
        }
    }
}
