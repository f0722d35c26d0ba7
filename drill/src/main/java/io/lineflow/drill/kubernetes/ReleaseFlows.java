package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.Pause;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobState;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The faults of the Kubernetes drill that change the FlinkDeployment's spec as a team would and
 * let the operator roll it out: the job suspended and resumed, a new release applied with
 * kustomize, the major upgrade to the next Flink line and its rollback. Each returns when the
 * operator runs the new spec (epoch ms).
 */
final class ReleaseFlows {
    /** A new release the drill upgrades to with kustomize: a new image, parallelism and upgrade mode. */
    record Release(String name, String image, int parallelism, String upgradeMode) {
        static final Release LAST_STATE =
                new Release("last-state-upgrade", "lineflow-job:e2e-upgrade-1", 3, "last-state");
        static final Release SAVEPOINT = new Release("savepoint-upgrade", "lineflow-job:e2e-upgrade-2", 2, "savepoint");
        /**
         * This build on Flink 2.2 (scripts/e2e-images.sh), at the e2e overlay's parallelism; the
         * operator upgrades a change of {@code flinkVersion} through a savepoint whatever the mode.
         */
        static final Release MAJOR = new Release("major-upgrade", "lineflow-job:e2e-flink-2.2", 2, "savepoint");
        /** The e2e overlay's own release, on Flink 1.20: what the major rollback returns to. */
        static final Release E2E = new Release("major-rollback", "lineflow-job:e2e", 2, "last-state");
    }

    /** The next Flink line's {@code flinkVersion}. */
    static final String NEXT_FLINK_VERSION = "v2_2";

    /** The shipped kustomize component that puts a deployment on the next line (kustomize/components). */
    static final String NEXT_LINE_COMPONENT = "flink-2.2";

    private static final Duration POLL = Duration.ofSeconds(2);

    private final FlinkCluster flink;
    private final Kubectl k8s;
    private final Overlays overlays;
    /** How long the job stays suspended in {@link #suspendAndResume}. */
    private final Duration suspension;

    private final Consumer<String> log;
    /** The savepoint the operator took for the major upgrade: the major rollback restores it. */
    private String beforeMajorUpgrade;
    /** How many major rollbacks redeployed from a savepoint: the next one's nonce. */
    private long redeploys;

    ReleaseFlows(FlinkCluster flink, Kubectl k8s, Overlays overlays, Duration suspension, Consumer<String> log) {
        this.flink = flink;
        this.k8s = k8s;
        this.overlays = overlays;
        this.suspension = suspension;
        this.log = log;
    }

    /** The job suspended through {@code spec.job.state}, held so, then resumed the same way. */
    long suspendAndResume() {
        long began = System.currentTimeMillis();
        flink.deployment().setJobState(JobState.SUSPENDED);
        Await.orFail(
                Duration.ofMinutes(3),
                POLL,
                "lifecycle SUSPENDED",
                () -> flink.deployment().lifecycle().orElse(null) == ResourceLifecycleState.SUSPENDED);
        log.accept("  suspended " + DrillReport.seconds(System.currentTimeMillis() - began)
                + " after the patch; resuming in " + suspension.toSeconds() + " s");
        Pause.sleep(suspension.toMillis());
        long resumed = System.currentTimeMillis();
        flink.deployment().setJobState(JobState.RUNNING);
        long running = deployed(
                "job.state running",
                spec -> spec.getJob() != null && spec.getJob().getState() == JobState.RUNNING);
        log.accept("  deployed and RUNNING " + DrillReport.seconds(running - resumed) + " after the resume patch");
        return running;
    }

    /**
     * The same overlay a user applies, with the image and parallelism of a new release; applied
     * with {@code kubectl apply -k}, as a GitOps sync would, and the operator upgrades.
     */
    long upgrade(Release release) throws IOException {
        apply(overlays.write(release.name(), patches(release)));
        return deployed("image " + release.image(), spec -> release.image().equals(spec.getImage()));
    }

    /**
     * The major upgrade as a team applies it: the e2e overlay with the shipped component
     * {@value #NEXT_LINE_COMPONENT} ({@code flinkVersion: v2_2}, that line's S3 plugin) and the job
     * image built for Flink 2.2, applied with kustomize; the operator stops the 1.20 job with a
     * savepoint and starts 2.2 from it. Keeps that savepoint for {@link #majorRollback}.
     */
    long majorUpgrade() throws IOException {
        Release release = Release.MAJOR;
        if (flink.pods().images(ClusterPods.JM).contains(release.image())) {
            throw new IllegalStateException("the JobManager already runs " + release.image());
        }
        apply(overlays.write(release.name(), List.of(NEXT_LINE_COMPONENT), patches(release)));
        long deployed = deployed(
                "image " + release.image() + " on flinkVersion " + NEXT_FLINK_VERSION,
                spec -> release.image().equals(spec.getImage()));
        beforeMajorUpgrade = flink.deployment().upgradeSavepoint();
        if (beforeMajorUpgrade.isEmpty()) {
            throw new IllegalStateException("the operator recorded no savepoint for the major upgrade");
        }
        log.accept("  Flink 2.2 runs, restored from " + beforeMajorUpgrade + " (kept for the rollback)");
        return deployed;
    }

    /**
     * Back to the e2e overlay's Flink 1.20 release, redeployed from the savepoint kept before the
     * major upgrade ({@code initialSavepointPath} and a new {@code savepointRedeployNonce}: the
     * operator does not roll back across a Flink version by itself), once Flink 2.2 has completed
     * a checkpoint of its own. Makes the major upgrade first if this run has not.
     */
    long majorRollback() throws IOException {
        if (beforeMajorUpgrade == null) {
            majorUpgrade();
        }
        long completed = flink.rest().completedCheckpoints().orElse(0L);
        Await.orFail(
                Duration.ofMinutes(3),
                POLL,
                "a checkpoint completed by Flink 2.2's job",
                () -> flink.rest().completedCheckpoints().orElse(0L) > completed);
        Release release = Release.E2E;
        apply(overlays.write(
                release.name(),
                List.of(
                        Overlays.Patch.add(beforeMajorUpgrade, "spec", "job", "initialSavepointPath"),
                        Overlays.Patch.add(++redeploys, "spec", "job", "savepointRedeployNonce"))));
        long deployed = deployed(
                "image " + release.image() + " redeployed from " + beforeMajorUpgrade,
                spec -> release.image().equals(spec.getImage())
                        && spec.getJob() != null
                        && beforeMajorUpgrade.equals(spec.getJob().getInitialSavepointPath()));
        log.accept("  Flink 1.20 runs again, redeployed from the savepoint kept before the upgrade");
        return deployed;
    }

    /** The overlay patches that put {@code release}'s image, parallelism and upgrade mode in the spec. */
    private static List<Overlays.Patch> patches(Release release) {
        return List.of(
                Overlays.Patch.replace(release.image(), "spec", "image"),
                Overlays.Patch.replace(release.parallelism(), "spec", "job", "parallelism"),
                Overlays.Patch.replace(release.upgradeMode(), "spec", "job", "upgradeMode"));
    }

    /** {@code kubectl apply -k} of the overlay in {@code dir}, logging what it changed. */
    private void apply(Path dir) {
        log.accept("  " + Kubectl.changed(k8s.run("apply", "-k", dir.toString())));
    }

    /**
     * Waits until the operator has reconciled a spec that is {@code what} (it may take a minute to
     * start: it finishes what it is doing first), has deployed it and the job runs; returns that
     * moment.
     */
    private long deployed(String what, Predicate<FlinkDeploymentSpec> spec) {
        Await.orFail(
                Duration.ofMinutes(10),
                POLL,
                "the operator to deploy the spec with " + what,
                () -> flink.deployment().reconciledSpec().filter(spec).isPresent()
                        && List.of(ResourceLifecycleState.DEPLOYED, ResourceLifecycleState.STABLE)
                                .contains(flink.deployment().lifecycle().orElse(null))
                        && flink.deployment().jobState().orElse(null) == JobStatus.RUNNING);
        return System.currentTimeMillis();
    }
}
