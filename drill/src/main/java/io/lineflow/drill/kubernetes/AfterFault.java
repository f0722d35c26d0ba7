package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.ClusterPods.JM;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;

import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;

import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What a fault of the Kubernetes drill must have done, or left alone, checked once the job's
 * timeline is measured: beyond the table, the timeline and the reconciler's health, which every
 * scenario checks. Chosen per fault by {@link #of}, an exhaustive switch: a new fault does not
 * compile until it says what is checked after it.
 */
sealed interface AfterFault {
    /** The cluster as the drill reads it. */
    record Cluster(FlinkCluster flink, ReconcilerMetrics reconciler, Consumer<String> log) {}

    /**
     * The cluster just before the strike, read by {@link #of(Cluster, long)}.
     *
     * @param jobManagerPods the JobManager pods' uids
     * @param leader who holds the JobManagers' leader election
     * @param failedCheckpoints the reconciler's count of failed checkpoints
     */
    record Before(long injectedAt, Set<String> jobManagerPods, String jobId, String leader, double failedCheckpoints) {
        static Before of(Cluster c, long injectedAt) {
            return new Before(
                    injectedAt,
                    c.flink().pods().uids(JM),
                    c.flink().deployment().jobId(),
                    c.flink().pods().leaderHolder(),
                    c.reconciler().gauge(CheckpointFailuresCounted.METRIC).orElse(0.0));
        }
    }

    /** Adds to {@code result} what the fault should have done and did not. */
    void check(Cluster c, Before before, ScenarioResult result);

    /**
     * The checks after {@code fault}.
     *
     * @throws IllegalStateException for a fault of the local drill only
     */
    static AfterFault of(Fault fault) {
        return switch (fault) {
            case S3_OUTAGE -> new CheckpointFailuresCounted(Duration.ofMinutes(2));
            case JM_LEADER_DELETE -> new NewLeader(NewLeader.DUPLICATE_WATCH);
            case JM_LEADER_KILL -> new NewLeader(Duration.ZERO);
            case JM_STANDBY_DELETE -> new LeftAlone("deleting the standby JobManager", false);
            case OPERATOR_RESTART -> new LeftAlone("the operator's restart", true);
            case OPERATOR_UPGRADE -> new OperatorUpgradeNoted();
            case LAST_STATE_UPGRADE -> new Deployed(ReleaseFlows.Release.LAST_STATE, false);
            case SAVEPOINT_UPGRADE -> new Deployed(ReleaseFlows.Release.SAVEPOINT, true);
            case MAJOR_UPGRADE -> new Deployed(ReleaseFlows.Release.MAJOR, true);
            case MAJOR_ROLLBACK -> new Deployed(ReleaseFlows.Release.E2E, false);
            // The table, the timeline and the reconciler's health say all there is to say of these.
            case JM_POD_DELETE, JM_KILL, TM_POD_KILL, DB_OUTAGE, KAFKA_RESTART, SUSPEND_RESUME, NODE_RESTART ->
                new Nothing();
            case TM_KILL,
                    JM_FAILOVER,
                    FULL_RESTART,
                    UPGRADE,
                    PG_KILL,
                    KAFKA_KILL,
                    PARTITION_DB,
                    PARTITION_KAFKA,
                    PARTITION_JM ->
                throw new IllegalStateException(fault.id + " is not a fault of the Kubernetes drill");
        };
    }

    /** Nothing beyond what every scenario checks. */
    record Nothing() implements AfterFault {
        @Override
        public void check(Cluster c, Before before, ScenarioResult result) {}
    }

    /** The reconciler counts the checkpoints that failed during the outage, within {@code deadline}. */
    record CheckpointFailuresCounted(Duration deadline) implements AfterFault {
        static final String METRIC = "lineflow_reconciler_checkpoints_failed";

        @Override
        public void check(Cluster c, Before before, ScenarioResult result) {
            double[] failed = {before.failedCheckpoints()};
            boolean seen = Await.until(deadline, Duration.ofSeconds(5), () -> {
                failed[0] = c.reconciler().gauge(METRIC).orElse(before.failedCheckpoints());
                return failed[0] > before.failedCheckpoints();
            });
            if (seen) {
                c.log()
                        .accept(String.format(
                                "  the reconciler counts %.0f failed checkpoints, %.0f before the outage",
                                failed[0], before.failedCheckpoints()));
            } else {
                result.problems.add("RECONCILER reported no failed checkpoint for the S3 outage (" + METRIC + " stayed "
                        + before.failedCheckpoints() + ")");
            }
        }
    }

    /**
     * A new JobManager leader took over; and, for {@code duplicateWatch} from the fault on, the
     * reconciler measured the duplicate ratio and never found a double read.
     */
    record NewLeader(Duration duplicateWatch) implements AfterFault {
        /** How long after a leader failover the reconciler must report no duplicate consumption. */
        static final Duration DUPLICATE_WATCH = Duration.ofMinutes(5);

        @Override
        public void check(Cluster c, Before before, ScenarioResult result) {
            if (result.leaderMillis == null) {
                result.problems.add("LEADER no new JobManager leader after the leader's " + result.scenario.name());
            }
            if (!duplicateWatch.isZero()) {
                c.reconciler()
                        .watch(before.injectedAt() + duplicateWatch.toMillis(), Duration.ofSeconds(10), c.log())
                        .problem()
                        .ifPresent(result.problems::add);
            }
        }
    }

    /**
     * A fault the job must ride out: it never left RUNNING, the job id is the same, and the
     * JobManager pods ({@code samePods}) or else the leader are the same.
     */
    record LeftAlone(String cause, boolean samePods) implements AfterFault {
        @Override
        public void check(Cluster c, Before before, ScenarioResult result) {
            if (result.recoveryMillis != null) {
                result.problems.add("JOB " + cause + " interrupted the job");
            }
            boolean sameJob = c.flink().deployment().jobId().equals(before.jobId());
            if (samePods && (!sameJob || !c.flink().pods().uids(JM).equals(before.jobManagerPods()))) {
                result.problems.add("JOB " + cause + " replaced the JobManager pod or the job");
            }
            if (!samePods && (!sameJob || !c.flink().pods().leaderHolder().equals(before.leader()))) {
                result.problems.add("JOB " + cause + " changed the leader or the job");
            }
        }
    }

    /** Whether the operator's upgrade restarted the job: not a failure either way, but the user must know. */
    record OperatorUpgradeNoted() implements AfterFault {
        @Override
        public void check(Cluster c, Before before, ScenarioResult result) {
            boolean untouched = result.recoveryMillis == null
                    && c.flink().pods().uids(JM).equals(before.jobManagerPods())
                    && c.flink().deployment().jobId().equals(before.jobId());
            String said = "operator upgraded (now " + c.flink().operator().images() + "): "
                    + (untouched
                            ? "the job was not restarted (same JobManager pods and job id, never left RUNNING)"
                            : "the job was restarted (JobManager pods or job id changed, or it left RUNNING)");
            result.monitoring.add(said);
            c.log().accept("  " + said);
        }
    }

    /**
     * The JobManager runs the release's image and the operator deployed its parallelism; after a
     * savepoint upgrade ({@code savepoint}), the operator recorded the savepoint it restored.
     */
    record Deployed(ReleaseFlows.Release release, boolean savepoint) implements AfterFault {
        @Override
        public void check(Cluster c, Before before, ScenarioResult result) {
            String running = c.flink().pods().images(JM);
            FlinkDeploymentSpec spec = c.flink().deployment().reconciledSpec().orElse(null);
            Integer parallelism =
                    spec == null || spec.getJob() == null ? null : spec.getJob().getParallelism();
            // Every JobManager on exactly that image: "lineflow-job:e2e" is also a prefix of the
            // other releases' tags, which a rollback must have left.
            boolean onImage =
                    !running.isBlank() && Arrays.stream(running.split(" ")).allMatch(release.image()::equals);
            if (!onImage || parallelism == null || parallelism != release.parallelism()) {
                result.problems.add("UPGRADE expected image " + release.image() + " at parallelism "
                        + release.parallelism() + ", the JobManager runs " + running + " and the deployed spec is "
                        + (spec == null ? "none" : spec.getImage() + " at parallelism " + parallelism));
            }
            if (savepoint) {
                String path = c.flink().deployment().upgradeSavepoint();
                if (path.isEmpty()) {
                    result.problems.add("UPGRADE the operator recorded no savepoint for the savepoint upgrade");
                } else {
                    c.log().accept("  restored from savepoint " + path);
                }
            }
        }
    }
}
