package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.reconciler.ReconcilerOptions;

import org.apache.flink.configuration.Configuration;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the in-cluster reconciler must say of lineflow's deployment, read from the summary it
 * writes ({@link ReconcilerOutputs#health}) and the Events it records.
 *
 * @param healthy from the table's settling until the reconciler says HEALTHY again after a healthy
 *     scenario
 * @param reported until a pitfall applied is reported
 */
record ReconcilerHealth(ReconcilerOutputs reconciler, Duration healthy, Duration reported, Consumer<String> log) {
    /**
     * The waits of the deployment as deployed, read from the cluster: the reconciler's settings
     * from its Deployment, the checkpoint timeout from the FlinkDeployment.
     *
     * <p>HEALTHY again within the longest a finding a healthy scenario rightly raises is kept:
     * CHECKPOINT_FAILURES after an S3 outage stays for the reconciler's checkpoint-failures window
     * from the last failed checkpoint, and that one expires up to a checkpoint timeout after the
     * server is back, when the table settles; then a pass sees it gone and the next has written
     * the summary (e2e: 60 s + 2 min + 2 × 10 s). A fixed 120 s left about 6 s to spare when the
     * checkpoint failed 61 s into the 75 s outage: too little on a slower machine. A pitfall is
     * reported within three passes: the one that sees it, and the API's round trips.
     */
    static ReconcilerHealth of(FlinkCluster flink, Consumer<String> log) {
        Configuration settings = flink.reconciler().settings();
        Duration pass = settings.get(ReconcilerOptions.INTERVAL);
        Duration healthy = flink.deployment()
                .checkpointTimeout()
                .plus(settings.get(ReconcilerOptions.CHECKPOINT_FAILURE_WINDOW))
                .plus(pass.multipliedBy(2));
        Duration reported = pass.multipliedBy(3);
        log.accept("the reconciler must say HEALTHY within " + healthy.toSeconds()
                + " s of a healthy scenario's table and report a pitfall within " + reported.toSeconds() + " s");
        return new ReconcilerHealth(flink.reconciler(), healthy, reported, log);
    }

    /** After a healthy scenario: HEALTHY again. */
    void healthyAgain(ScenarioResult result) {
        String[] status = {""};
        long from = System.currentTimeMillis();
        boolean ok = Await.until(healthy, Await.pollWithin(healthy, Duration.ofSeconds(3)), () -> {
            status[0] = reconciler.healthStatus();
            return status[0].equals("HEALTHY");
        });
        if (ok) {
            log.accept("  the reconciler says HEALTHY " + DrillReport.seconds(System.currentTimeMillis() - from)
                    + " after the table settled");
        } else {
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
                () -> reconciler.eventReported(code)
                        && reconciler
                                .health()
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
