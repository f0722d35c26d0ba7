package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.TableCheck;

import org.apache.flink.api.common.JobStatus;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A negative control's deployment: the running one deleted (the operator removes its HA metadata
 * with it), then the e2e overlay with the control's pitfall applied through a kustomization, as a
 * team's mistake would reach the cluster. Reading from the latest offset, so the earlier
 * scenarios' input is not read again.
 */
record ControlDeployment(
        FlinkCluster flink,
        Kubectl k8s,
        Overlays overlays,
        TableCheck.Database db,
        ReconcilerHealth reconciler,
        String topic,
        int partitions,
        Consumer<String> log) {
    /** The job's arguments in the e2e overlay, before a control adds its own. */
    private static final List<String> ARGS = List.of("--config", "/etc/lineflow/lineflow.properties");

    /** The patches that apply {@code control}'s pitfall to the overlay. */
    static List<Overlays.Patch> patches(KubernetesScenario.Control control) {
        List<Overlays.Patch> patches = new ArrayList<>();
        List<String> args = new ArrayList<>(ARGS);
        switch (control) {
            case ADDITIVE_SINK -> args.addAll(List.of("--lineflow.sink.mode", "ADDITIVE"));
            case NO_CHECKPOINTS -> {
                // The seed pitfall: no checkpoint interval in the spec, and checkpointing off in the job.
                patches.add(Overlays.Patch.remove("spec", "flinkConfiguration", "execution.checkpointing.interval"));
                args.addAll(List.of("--lineflow.checkpointing.enabled", "false"));
            }
        }
        args.addAll(List.of("--lineflow.kafka.starting-offsets", "LATEST"));
        patches.add(Overlays.Patch.replace(args, "spec", "job", "args"));
        return patches;
    }

    /** Deploys {@code control} in place of the running deployment, and waits until it reads every partition. */
    void deploy(KubernetesScenario.Control control, ScenarioResult result) throws Exception {
        Path dir = overlays.write(control.id.replace(':', '-'), patches(control));
        k8s.run(
                "delete",
                "flinkdeployment/" + FlinkCluster.NAME,
                "--ignore-not-found",
                "--wait=true",
                "--timeout=180s");
        Await.orFail(
                Duration.ofMinutes(3),
                Duration.ofSeconds(2),
                "the old JobManager and TaskManager pods gone",
                () -> flink.pods()
                        .withLabels(Map.of("app", FlinkCluster.NAME))
                        .map(List::isEmpty)
                        .orElse(false));
        long applied = System.currentTimeMillis();
        log.accept("  " + Kubectl.changed(k8s.run("apply", "-k", dir.toString())));
        if (control == KubernetesScenario.Control.NO_CHECKPOINTS) {
            reconciler.pitfallReported("CHECKPOINTING_DISABLED", applied, result);
        }
        Await.orFail(
                Duration.ofMinutes(10),
                Duration.ofSeconds(2),
                "the control's job RUNNING",
                () -> flink.deployment().jobState().orElse(null) == JobStatus.RUNNING);
        // Reading from the latest offset: input sent before a reader has sought to the end of its
        // partition would be skipped, and the control would be caught for the wrong reason.
        Await.orFail(
                Duration.ofMinutes(2),
                Duration.ofSeconds(2),
                "every partition of " + topic + " given to a source reader of the control's job",
                () -> flink.rest()
                        .readerPartitions(topic)
                        .map(p -> p.size() == partitions)
                        .orElse(false));
    }

    /**
     * Holds the additive-sink control's strike until a window row has been written since the
     * latest completed checkpoint: only such a row is written again by the replay, and added to.
     * Struck right after a checkpoint, before the next window fires, the control would have
     * nothing to double and pass by chance (seen: the table exact, the control NOT DETECTED).
     */
    void awaitRowSinceCheckpoint() {
        RowSinceCheckpoint since = new RowSinceCheckpoint();
        Await.orFail(
                Duration.ofMinutes(1),
                Duration.ofMillis(500),
                "a window row written since the latest completed checkpoint",
                () -> since.observe(flink.rest().completedCheckpoints().orElse(-1L), rowCount()));
        log.accept("  a window row written since checkpoint " + since.checkpoint() + ": striking now");
    }

    private long rowCount() {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM device_window_stats");
                ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }
}
