package io.lineflow.drill.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What one scenario showed: the verifier's findings and the recovery timeline. */
public final class ScenarioResult {
    public final Scenario scenario;
    public final List<String> problems = new ArrayList<>();
    public int missing;
    public int extra;
    public int wrong;
    public int rowsExpected;
    public int rowsActual;
    public String rejectionsExpected = "";
    public String rejectionsActual = "";
    /** What the verifier waited for before it read both tables (see TableCheck.await). */
    public String waited = "";
    /** Injection → job RUNNING with every task running again; null if it never stopped running. */
    public Long recoveryMillis;
    /** Injection → the first window row written after it. */
    public Long outputGapMillis;
    /** Injection → a new JobManager leader (Kubernetes HA's lock changed hands); null if it did not. */
    public volatile Long leaderMillis;

    /** Pieces per window start (all devices), as expected and as found in the table. */
    public final Map<Long, Long> piecesExpected = new TreeMap<>();

    public final Map<Long, Long> piecesActual = new TreeMap<>();
    /**
     * What Prometheus and the Alertmanager showed (Kubernetes drill): each alert with when it was
     * first and last seen active, the dashboard's queries and their values; empty when not watched.
     */
    public final List<String> monitoring = new ArrayList<>();

    /**
     * Series over the scenario's span, a chart each by title (Kubernetes drill: Prometheus' output
     * rate, lag, checkpoint duration, restarts), the moments in {@link #marks} marked on them.
     */
    public final Map<String, List<TimeChart.Point>> series = new LinkedHashMap<>();

    public final List<TimeChart.Mark> marks = new ArrayList<>();
    public long startedAt;
    public long durationMillis;
    public String error;

    public ScenarioResult(Scenario scenario) {
        this.scenario = scenario;
    }

    public boolean damaged() {
        return !problems.isEmpty();
    }

    /** A fault scenario passes when the table is exact; a control passes when damage is caught. */
    public boolean passed() {
        return error == null && (scenario.control() ? damaged() : !damaged());
    }

    public String verdict() {
        if (error != null) {
            return "ERROR";
        }
        if (scenario.control()) {
            return damaged() ? "DAMAGE DETECTED (control ok)" : "NOT DETECTED (control FAILED)";
        }
        return damaged() ? "FAIL" : "EXACT";
    }
}
