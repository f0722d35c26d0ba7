package io.lineflow.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What one scenario showed: the verifier's findings and the recovery timeline. */
final class ScenarioResult {
    final Scenario scenario;
    final List<String> problems = new ArrayList<>();
    int missing;
    int extra;
    int wrong;
    int rowsExpected;
    int rowsActual;
    String rejectionsExpected = "";
    String rejectionsActual = "";
    /** Injection → job RUNNING with every task running again; null if it never stopped running. */
    Long recoveryMillis;
    /** Injection → the first window row written after it. */
    Long outputGapMillis;

    /** Pieces per window start (all devices), as expected and as found in the table. */
    final Map<Long, Long> piecesExpected = new TreeMap<>();

    final Map<Long, Long> piecesActual = new TreeMap<>();
    long durationMillis;
    String error;

    ScenarioResult(Scenario scenario) {
        this.scenario = scenario;
    }

    boolean damaged() {
        return !problems.isEmpty();
    }

    /** A fault scenario passes when the table is exact; a control passes when damage is caught. */
    boolean passed() {
        return error == null && (scenario.control ? damaged() : !damaged());
    }

    String verdict() {
        if (error != null) {
            return "ERROR";
        }
        if (scenario.control) {
            return damaged() ? "DAMAGE DETECTED (control ok)" : "NOT DETECTED (control FAILED)";
        }
        return damaged() ? "FAIL" : "EXACT";
    }
}
