package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.ReconcilerOptions.CHECKPOINT_FAILURE_THRESHOLD;
import static io.lineflow.reconciler.ReconcilerOptions.CHECKPOINT_FAILURE_WINDOW;
import static io.lineflow.reconciler.checks.Format.human;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation.Checkpoints;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The running job's checkpoints: CHECKPOINTING_DISABLED as Flink sees it, CHECKPOINT_STALE,
 * CHECKPOINT_FAILURES and CHECKPOINT_NOT_EXTERNAL.
 */
public final class CheckpointCheck implements Check {

    /** What Flink writes as external path for checkpoints kept in JobManager heap. */
    static final String NOT_ADDRESSABLE = "<checkpoint-not-externally-addressable>";

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        return checkpointingDisabledAtRuntime(o)
                .join(checkpointStale(o, clock))
                .join(checkpointFailures(o, conf, clock))
                .join(checkpointNotExternal(o));
    }

    /** CHECKPOINTING_DISABLED as seen by Flink itself: the running job has no periodic checkpoints. */
    public static HealthResult checkpointingDisabledAtRuntime(Observation o) {
        Job job = o.job();
        if (job == null || job.checkpoints() == null || job.checkpoints().enabled()) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.CHECKPOINTING_DISABLED,
                        Severity.CRITICAL,
                        "Flink reports that job " + job.name() + " (" + job.id()
                                + ") takes no periodic checkpoints: after any restart its windows are rebuilt "
                                + "from wherever the source resumes, losing or doubling counts. Set execution.checkpointing.interval.")
                .with("jobId", job.id())
                .with("source", "flink-rest")
                .build()
                .asResult();
    }

    /** The allowed time without a completed checkpoint: max(interval, timeout) × (tolerable + 2). */
    public static Optional<Duration> staleWindow(Observation o) {
        Job job = o.job();
        Checkpoints cp = job == null ? null : job.checkpoints();
        FlinkConf spec = new FlinkConf(o.spec().flinkConfiguration());
        Duration interval = cp != null && cp.interval() != null
                ? cp.interval()
                : spec.value(CheckpointingOptions.CHECKPOINTING_INTERVAL).orElse(null);
        if (interval == null || interval.isZero() || interval.isNegative()) {
            return Optional.empty();
        }
        Duration timeout = cp != null && cp.timeout() != null
                ? cp.timeout()
                : spec.valueOrDefault(CheckpointingOptions.CHECKPOINTING_TIMEOUT);
        int tolerable = cp != null && cp.tolerableFailures() != null
                ? cp.tolerableFailures()
                : spec.valueOrDefault(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER);
        Duration base = interval.compareTo(timeout) >= 0 ? interval : timeout;
        return Optional.of(base.multipliedBy(Math.max(0, tolerable) + 2L));
    }

    /** CHECKPOINT_STALE: no checkpoint completed within the stale window while the job runs. */
    public static HealthResult checkpointStale(Observation o, Clock clock) {
        Job job = o.job();
        if (job == null
                || job.state() != JobStatus.RUNNING
                || job.checkpoints() == null
                || !job.checkpoints().enabled()) {
            return HealthResult.healthy();
        }
        Optional<Duration> window = staleWindow(o);
        Instant reference = job.checkpoints().latestCompletedAt() != null
                ? job.checkpoints().latestCompletedAt()
                : job.startTime();
        if (window.isEmpty() || reference == null) {
            return HealthResult.healthy();
        }
        Duration age = Duration.between(reference, clock.instant());
        if (age.compareTo(window.get()) <= 0) {
            return HealthResult.healthy();
        }
        boolean never = job.checkpoints().latestCompletedAt() == null;
        return Finding.of(
                        FindingCode.CHECKPOINT_STALE,
                        Severity.CRITICAL,
                        (never
                                        ? "No checkpoint has completed since the job started "
                                        : "The latest checkpoint completed ")
                                + human(age) + " ago, longer than the allowed " + human(window.get())
                                + " (max(interval, timeout) × (tolerable failures + 2)). A restart now replays everything since then, and Kafka may drop it first. "
                                + "Look for backpressure, a stuck sink or an unwritable checkpoint directory.")
                .with("checkpointAgeSeconds", age.toSeconds())
                .with("allowedSeconds", window.get().toSeconds())
                .with("latestCompletedId", job.checkpoints().latestCompletedId())
                .with("inProgress", job.checkpoints().inProgress())
                .build()
                .asResult();
    }

    /** CHECKPOINT_FAILURES: checkpoints failed within the window (critical when none completed since). */
    public static HealthResult checkpointFailures(Observation o, Configuration conf, Clock clock) {
        Job job = o.job();
        Checkpoints cp = job == null ? null : job.checkpoints();
        if (cp == null || !cp.enabled()) {
            return HealthResult.healthy();
        }
        Duration window = conf.get(CHECKPOINT_FAILURE_WINDOW);
        // Flink also counts the triggers it refuses while tasks are still being scheduled ("Not all
        // required tasks are currently running") as failed; they leave no failed checkpoint behind
        // and do not count against the tolerable failures. Under the operator every start and every
        // recovery waits for TaskManager pods, so those refusals are routine (seen on the e2e
        // cluster). Only a failed checkpoint within the window makes the count worth reporting.
        //
        // Failures before the job's latest restore are left out: a failover aborts the checkpoints
        // in flight ("Checkpoint Coordinator is suspending") and a sink that lost its database
        // fails the checkpoint that made the job restart; the restart itself is reported
        // (JOB_NOT_RUNNING, RESTART_LOOP), and a job that checkpoints fine since has no checkpoint
        // problem. Counting them kept a recovered job DEGRADED for the whole window (seen under
        // the operator after a 15 s database outage).
        Instant from = clock.instant().minus(window);
        Instant restored = Samples.lastRestore(o, job, from);
        if (restored != null) {
            from = restored;
        }
        boolean failedCheckpointInWindow =
                cp.latestFailedAt() != null && !cp.latestFailedAt().isBefore(from);
        if (!failedCheckpointInWindow) {
            return HealthResult.healthy();
        }
        Optional<Sample> base =
                Samples.oldestWithin(o, Duration.between(from, o.observedAt()), s -> s.checkpointsFailed() != null);
        long inWindow;
        if (base.isPresent()) {
            inWindow = Math.max(0, cp.failed() - base.get().checkpointsFailed());
        } else {
            inWindow = 1; // no history (e.g. a one-shot check): the latest failure is recent
        }
        boolean failingNow = cp.latestFailedAt() != null
                && (cp.latestCompletedAt() == null || cp.latestFailedAt().isAfter(cp.latestCompletedAt()));
        if (inWindow < conf.get(CHECKPOINT_FAILURE_THRESHOLD) && !(failingNow && base.isEmpty() && inWindow > 0)) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.CHECKPOINT_FAILURES,
                        failingNow ? Severity.CRITICAL : Severity.WARNING,
                        inWindow + " checkpoint(s) failed in the last " + human(window)
                                + (failingNow ? ", and none has completed since the latest failure" : "")
                                + (cp.latestFailureMessage() != null
                                        ? " (latest: " + cp.latestFailureMessage() + ")"
                                        : "")
                                + ". Fix the cause (storage permissions or space, timeouts under backpressure) before the tolerable-failure limit fails the job.")
                .with("failedInWindow", inWindow)
                .with("failedTotal", cp.failed())
                .with("completedTotal", cp.completed())
                .with(
                        "latestFailedAt",
                        cp.latestFailedAt() == null ? null : cp.latestFailedAt().toString())
                .with("latestFailureMessage", cp.latestFailureMessage())
                .build()
                .asResult();
    }

    /** CHECKPOINT_NOT_EXTERNAL: the latest completed checkpoint has no external path. */
    public static HealthResult checkpointNotExternal(Observation o) {
        Job job = o.job();
        Checkpoints cp = job == null ? null : job.checkpoints();
        if (cp == null || cp.latestCompletedId() == null) {
            return HealthResult.healthy();
        }
        String path = cp.latestCompletedExternalPath();
        if (path != null && !path.isBlank() && !path.equals(NOT_ADDRESSABLE)) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.CHECKPOINT_NOT_EXTERNAL,
                        Severity.CRITICAL,
                        "Checkpoint " + cp.latestCompletedId()
                                + " has no external path, so nothing can be restored from it after the JobManager is gone. "
                                + "Configure a durable execution.checkpointing.dir and RETAIN_ON_CANCELLATION.")
                .with("latestCompletedId", cp.latestCompletedId())
                .with("externalPath", path)
                .build()
                .asResult();
    }
}
