package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the in-cluster reconciler must say of lineflow's deployment, read from the summary it
 * writes ({@link FlinkCluster#health}) and the Events it records.
 *
 * @param healthy until the reconciler says HEALTHY again after a healthy scenario (a pass every 10 s)
 * @param reported until a pitfall applied is reported (one pass, plus the API's round trips)
 */
record ReconcilerHealth(FlinkCluster flink, Duration healthy, Duration reported, Consumer<String> log) {
    /** The e2e overlay's pass is 10 s. */
    static ReconcilerHealth of(FlinkCluster flink, Consumer<String> log) {
        return new ReconcilerHealth(flink, Duration.ofSeconds(120), Duration.ofSeconds(30), log);
    }

    /** After a healthy scenario: HEALTHY again. */
    void healthyAgain(ScenarioResult result) {
        String[] status = {""};
        boolean ok = Await.until(healthy, Await.pollWithin(healthy, Duration.ofSeconds(3)), () -> {
            status[0] = flink.healthStatus();
            return status[0].equals("HEALTHY");
        });
        if (!ok) {
            result.problems.add("RECONCILER reports '" + status[0] + "', not HEALTHY, " + healthy.toSeconds()
                    + " s after the table settled");
        }
    }

    /**
     * The reconciler's one-pass promise: the finding {@code code} reported both as an Event on the
     * FlinkDeployment and in the summary, within the deadline from {@code applied} (epoch ms). Not
     * reported is the control's error.
     */
    void pitfallReported(String code, long applied, ScenarioResult result) {
        Duration left = Duration.ofMillis(applied + reported.toMillis() - System.currentTimeMillis());
        boolean inTime = Await.until(
                left,
                Await.pollWithin(reported, Duration.ofSeconds(1)),
                () -> flink.eventReported(code)
                        && flink.health()
                                .map(c -> String.valueOf(c.getData()))
                                .orElse("")
                                .contains(code));
        if (inTime) {
            log.accept("  the reconciler reported " + code + " (Event and summary) "
                    + DrillReport.seconds(System.currentTimeMillis() - applied) + " after the apply");
        } else {
            result.error = "the reconciler did not report " + code + " as an Event and in its summary within "
                    + reported.toSeconds() + " s";
        }
    }
}
