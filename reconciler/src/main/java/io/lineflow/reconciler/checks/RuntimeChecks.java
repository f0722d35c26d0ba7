package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.ReconcilerOptions.CHECKPOINT_FAILURE_THRESHOLD;
import static io.lineflow.reconciler.ReconcilerOptions.CHECKPOINT_FAILURE_WINDOW;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_MIN_RATE;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_MIN_SPAN;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_RATIO;
import static io.lineflow.reconciler.ReconcilerOptions.LAG_MIN_GROWTH;
import static io.lineflow.reconciler.ReconcilerOptions.LAG_MIN_SAMPLES;
import static io.lineflow.reconciler.ReconcilerOptions.LAG_WINDOW;
import static io.lineflow.reconciler.ReconcilerOptions.RESTART_THRESHOLD;
import static io.lineflow.reconciler.ReconcilerOptions.RESTART_WINDOW;
import static io.lineflow.reconciler.ReconcilerOptions.RETENTION_DETECTION_ALLOWANCE;
import static io.lineflow.reconciler.ReconcilerOptions.RETENTION_RECOVERY_ALLOWANCE;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Checkpoints;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.KubernetesStatus;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The runtime checks: pure functions of an observation, its history, the options and a clock. */
public final class RuntimeChecks {

    /** What Flink writes as external path for checkpoints kept in JobManager heap. */
    static final String NOT_ADDRESSABLE = "<checkpoint-not-externally-addressable>";

    private static final Set<JobStatus> TRANSIENT_STATES = EnumSet.of(
            JobStatus.RESTARTING,
            JobStatus.INITIALIZING,
            JobStatus.CREATED,
            JobStatus.RECONCILING,
            JobStatus.FAILING,
            JobStatus.CANCELLING);

    private RuntimeChecks() {}

    /** All runtime checks joined. */
    public static HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        return jobNotRunning(o)
                .join(observationFailed(o))
                .join(restartLoop(o, conf))
                .join(checkpointStale(o, clock))
                .join(checkpointFailures(o, conf, clock))
                .join(checkpointNotExternal(o))
                .join(kafkaRetentionTooShort(o, conf, clock))
                .join(consumerLagGrowing(o, conf))
                .join(duplicateConsumption(o, conf));
    }

    /** JOB_NOT_RUNNING: the operator or Flink says the job is not RUNNING. */
    public static HealthResult jobNotRunning(Observation o) {
        if ("suspended".equals(o.spec().desiredState())) {
            return Finding.of(
                            FindingCode.JOB_NOT_RUNNING,
                            Severity.INFO,
                            "The job is suspended on purpose (spec.job.state: suspended); nothing to do unless that is a mistake.")
                    .with("desiredState", "suspended")
                    .build()
                    .asResult();
        }
        KubernetesStatus k = o.status();
        Job job = o.flink() != null && o.flink().ok() ? o.flink().job() : null;
        JobStatus k8sState = k == null ? null : k.jobState();
        JobManagerDeploymentStatus jmStatus = k == null ? null : k.jobManagerDeploymentStatus();
        JobStatus restState = job == null ? null : job.state();
        boolean noJobInFlink =
                o.flink() != null && o.flink().ok() && job == null && o.spec().hasJob();
        boolean jmBroken =
                jmStatus == JobManagerDeploymentStatus.ERROR || jmStatus == JobManagerDeploymentStatus.MISSING;
        JobStatus bad = firstNonRunning(restState, k8sState);
        if (bad == null && !jmBroken && !noJobInFlink) {
            return HealthResult.healthy();
        }
        Severity severity =
                (bad != null && TRANSIENT_STATES.contains(bad)) && !jmBroken ? Severity.WARNING : Severity.CRITICAL;
        String what = noJobInFlink
                ? "Flink reports no job"
                : jmBroken ? "the JobManager deployment is " + jmStatus : "the job is " + bad;
        return Finding.of(
                        FindingCode.JOB_NOT_RUNNING,
                        severity,
                        "The job is not running: " + what + ". No windows are being produced. "
                                + "Check `kubectl describe flinkdeployment "
                                + o.spec().name() + "` and the JobManager log"
                                + (k != null && k.error() != null ? "; operator error: " + k.error() : "") + ".")
                .with("flinkState", restState)
                .with("operatorJobState", k8sState)
                .with("jobManagerDeploymentStatus", jmStatus)
                .with("lifecycleState", k == null ? null : k.lifecycleState())
                .build()
                .asResult();
    }

    private static JobStatus firstNonRunning(JobStatus... states) {
        for (JobStatus s : states) {
            if (s != null && s != JobStatus.RUNNING) {
                return s;
            }
        }
        return null;
    }

    /** CHECKPOINTING_DISABLED as seen by Flink itself: the running job has no periodic checkpoints. */
    public static HealthResult checkpointingDisabledAtRuntime(Observation o) {
        Job job = job(o);
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

    /** OBSERVATION_FAILED: an observer could not be read, so some checks were skipped. */
    public static HealthResult observationFailed(Observation o) {
        HealthResult r = HealthResult.healthy();
        if (o.flink() != null && !o.flink().ok()) {
            r = r.join(Finding.of(
                            FindingCode.OBSERVATION_FAILED,
                            Severity.WARNING,
                            "The Flink REST API at " + o.flink().restUrl() + " could not be read ("
                                    + o.flink().error()
                                    + "); job, checkpoint and duplicate checks were skipped. Check the JobManager pod and its -rest Service, "
                                    + "or set the annotation lineflow.io/rest-url.")
                    .with("source", "flink-rest")
                    .with("url", o.flink().restUrl())
                    .with("error", o.flink().error())
                    .build()
                    .asResult());
        }
        if (o.kafka() != null && !o.kafka().ok()) {
            r = r.join(Finding.of(
                            FindingCode.OBSERVATION_FAILED,
                            Severity.WARNING,
                            "Kafka at " + o.kafka().bootstrap() + " could not be read for topic "
                                    + o.kafka().topic() + " ("
                                    + o.kafka().error() + "); retention, lag and duplicate-rate checks were skipped. "
                                    + "Check the annotations lineflow.io/kafka-bootstrap and lineflow.io/kafka-topic.")
                    .with("source", "kafka")
                    .with("bootstrap", o.kafka().bootstrap())
                    .with("topic", o.kafka().topic())
                    .with("error", o.kafka().error())
                    .build()
                    .asResult());
        }
        return r;
    }

    /** RESTART_LOOP: numRestarts grew by the threshold or more within the window. */
    public static HealthResult restartLoop(Observation o, Configuration conf) {
        Job job = job(o);
        if (job == null || job.numRestarts() == null) {
            return HealthResult.healthy();
        }
        Duration window = conf.get(RESTART_WINDOW);
        Optional<Sample> base = oldestWithin(o, window, s -> s.numRestarts() != null);
        if (base.isEmpty()) {
            return HealthResult.healthy();
        }
        long delta = job.numRestarts() - base.get().numRestarts();
        if (delta < conf.get(RESTART_THRESHOLD)) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.RESTART_LOOP,
                        Severity.CRITICAL,
                        "The job restarted " + delta + " times in the last "
                                + human(Duration.between(base.get().at(), o.observedAt()))
                                + ": it is failing over and over, so output stalls. Read the root cause in the JobManager log or Flink UI (Exceptions tab).")
                .with("restartsInWindow", delta)
                .with("numRestarts", job.numRestarts())
                .with("windowSeconds", window.toSeconds())
                .build()
                .asResult();
    }

    /** The allowed time without a completed checkpoint: max(interval, timeout) × (tolerable + 2). */
    public static Optional<Duration> staleWindow(Observation o) {
        Job job = job(o);
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
        Job job = job(o);
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
        Job job = job(o);
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
        Instant restored = lastRestore(o, job, from);
        if (restored != null) {
            from = restored;
        }
        boolean failedCheckpointInWindow =
                cp.latestFailedAt() != null && !cp.latestFailedAt().isBefore(from);
        if (!failedCheckpointInWindow) {
            return HealthResult.healthy();
        }
        Optional<Sample> base =
                oldestWithin(o, Duration.between(from, o.observedAt()), s -> s.checkpointsFailed() != null);
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
        Job job = job(o);
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

    /** KAFKA_RETENTION_TOO_SHORT: the topic would delete records before a restored job re-reads them. */
    public static HealthResult kafkaRetentionTooShort(Observation o, Configuration conf, Clock clock) {
        KafkaObservation k = o.kafka();
        if (k == null || !k.ok() || k.retention() == null) {
            return HealthResult.healthy();
        }
        Job job = job(o);
        Instant latest = job == null || job.checkpoints() == null
                ? null
                : job.checkpoints().latestCompletedAt();
        Duration checkpointAge = latest != null
                ? Duration.between(latest, clock.instant())
                : staleWindow(o).orElse(Duration.ZERO);
        Duration stale = staleWindow(o).orElse(Duration.ZERO);
        // A checkpoint may be as old as the stale window before anyone notices, so take the larger.
        Duration age = checkpointAge.compareTo(stale) >= 0 ? checkpointAge : stale;
        Duration required =
                age.plus(conf.get(RETENTION_DETECTION_ALLOWANCE)).plus(conf.get(RETENTION_RECOVERY_ALLOWANCE));
        if (k.retention().compareTo(required) >= 0) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.KAFKA_RETENTION_TOO_SHORT,
                        Severity.CRITICAL,
                        "Topic " + k.topic() + " keeps records for " + human(k.retention()) + ", less than the "
                                + human(required)
                                + " a recovery may need (checkpoint age " + human(age)
                                + " + detection + recovery allowances): records not yet in a checkpoint "
                                + "could be deleted before the job re-reads them. Raise retention.ms on the topic.")
                .with("retentionSeconds", k.retention().toSeconds())
                .with("requiredSeconds", required.toSeconds())
                .with("checkpointAgeSeconds", age.toSeconds())
                .build()
                .asResult();
    }

    /** CONSUMER_LAG_GROWING: the committed lag trends upward over the window. */
    public static HealthResult consumerLagGrowing(Observation o, Configuration conf) {
        KafkaObservation k = o.kafka();
        if (k == null || !k.ok() || k.lag() == null) {
            return HealthResult.healthy();
        }
        Duration window = conf.get(LAG_WINDOW);
        List<double[]> points = new ArrayList<>();
        Instant from = o.observedAt().minus(window);
        for (Sample s : o.history()) {
            if (s.lag() != null && !s.at().isBefore(from)) {
                points.add(new double[] {secondsBetween(from, s.at()), s.lag()});
            }
        }
        points.add(new double[] {secondsBetween(from, o.observedAt()), k.lag()});
        if (points.size() < conf.get(LAG_MIN_SAMPLES)) {
            return HealthResult.healthy();
        }
        double span = points.get(points.size() - 1)[0] - points.get(0)[0];
        if (span <= 0) {
            return HealthResult.healthy();
        }
        double slope = slope(points);
        double growth = slope * span;
        long minGrowth = conf.get(LAG_MIN_GROWTH);
        if (slope <= 0 || growth < minGrowth || k.lag() < minGrowth) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.CONSUMER_LAG_GROWING,
                        Severity.WARNING,
                        "Consumer lag on " + k.topic() + " is " + k.lag() + " records and grew by about "
                                + Math.round(growth) + " in "
                                + human(Duration.ofSeconds((long) span))
                                + ": the job reads slower than the line produces, so windows close late. "
                                + "Check backpressure and sink latency, or raise parallelism (up to the partition count).")
                .with("lag", k.lag())
                .with("growthInWindow", Math.round(growth))
                .with("recordsPerSecond", round(slope))
                .with("samples", points.size())
                .build()
                .asResult();
    }

    /** Source rate, topic rates and their ratio; empty when the figures are missing. */
    public record Rates(double sourceRate, double produceRate, double catchUpRate, double ratio, Duration span) {}

    /**
     * The duplicate ratio: source records/s divided by the rate at which the topic is consumed,
     * i.e. the produce rate plus the rate the lag shrinks at (so a catching-up job reads ~1).
     */
    public static Optional<Rates> rates(Observation o, Configuration conf) {
        Job job = job(o);
        KafkaObservation k = o.kafka();
        if (job == null
                || job.sourceRecordsOutPerSecond() == null
                || k == null
                || !k.ok()
                || k.endOffsetSum() == null) {
            return Optional.empty();
        }
        Duration minSpan = conf.get(DUPLICATE_MIN_SPAN);
        Sample base = null;
        for (Sample s : o.history()) {
            if (s.endOffsetSum() != null
                    && !Duration.between(s.at(), o.observedAt()).minus(minSpan).isNegative()) {
                base = s; // the newest sample that is old enough
            }
        }
        if (base == null || restoredWithin(o, job, base.at().minus(SOURCE_RATE_AVERAGING))) {
            return Optional.empty();
        }
        double seconds = secondsBetween(base.at(), o.observedAt());
        double produce = (k.endOffsetSum() - base.endOffsetSum()) / seconds;
        double catchUp = 0;
        if (k.lag() != null && base.lag() != null) {
            catchUp = Math.max(0, (base.lag() - k.lag()) / seconds);
        }
        double consumed = produce + catchUp;
        double source = job.sourceRecordsOutPerSecond();
        double ratio = consumed > 0 ? source / consumed : 0;
        return Optional.of(new Rates(source, produce, catchUp, ratio, Duration.between(base.at(), o.observedAt())));
    }

    /** The span Flink's per-second rates ({@code numRecordsOutPerSecond}, a MeterView) average over. */
    private static final Duration SOURCE_RATE_AVERAGING = Duration.ofSeconds(60);

    /**
     * Whether the job was restored from a checkpoint since {@code since}: started anew (a
     * JobManager failover, an upgrade, a resume) or restarted its tasks. A restore re-reads the
     * records after the checkpoint, so its sources rightly emit more than the topic receives (the
     * committed offsets do not move back, so the lag does not show the replay) until the replay has
     * left the rate's average: the ratio says nothing then. Seen under the operator after a broker
     * restart: ratio 4.7, a CRITICAL finding, and an opt-in remediation would have rolled the pods.
     */
    /**
     * When the job was last restored after {@code since}, or null: its start, or the first sample
     * that saw its current restart count (a task restart is seen at the next pass, not before).
     */
    private static Instant lastRestore(Observation o, Job job, Instant since) {
        Instant restored = null;
        if (job.startTime() != null && job.startTime().isAfter(since)) {
            restored = job.startTime();
        }
        if (restartedSince(o, job, since)) {
            for (Sample s : o.history()) {
                if (job.numRestarts().equals(s.numRestarts())) {
                    return restored == null || s.at().isAfter(restored) ? s.at() : restored;
                }
            }
            return o.observedAt();
        }
        return restored;
    }

    private static boolean restoredWithin(Observation o, Job job, Instant since) {
        return (job.startTime() != null && job.startTime().isAfter(since)) || restartedSince(o, job, since);
    }

    /** Whether the job restarted its tasks since {@code since}: its restart count grew. */
    private static boolean restartedSince(Observation o, Job job, Instant since) {
        if (job.numRestarts() == null) {
            return false;
        }
        Sample before = null;
        for (Sample s : o.history()) {
            if (s.numRestarts() != null && (before == null || !s.at().isAfter(since))) {
                before = s; // the newest sample not after `since`, else the oldest there is
            }
        }
        return before != null && job.numRestarts() > before.numRestarts();
    }

    /**
     * DUPLICATE_CONSUMPTION: the Kafka sources reading the topic emit about twice what Kafka
     * received, or their readers hold more partition assignments than there are partitions. Every
     * source reading the topic counts: two sources on one topic read each record twice.
     */
    public static HealthResult duplicateConsumption(Observation o, Configuration conf) {
        Job job = job(o);
        if (job == null || job.sources().isEmpty()) {
            return HealthResult.healthy();
        }
        Integer partitions = o.kafka() != null && o.kafka().ok() ? o.kafka().partitions() : null;
        int assigned = job.assignedSplits();
        int distinct = job.partitionsRead().size();
        if (assigned > distinct || (partitions != null && assigned > partitions)) {
            return Finding.of(
                            FindingCode.DUPLICATE_CONSUMPTION,
                            Severity.CRITICAL,
                            "The Kafka source readers hold " + assigned + " partition assignments for "
                                    + (partitions != null ? partitions : distinct) + " partitions"
                                    + (job.sources().size() > 1
                                            ? " across " + job.sources().size() + " sources reading the same topic ("
                                                    + sourceNames(job) + ")"
                                            : "")
                                    + ": some partitions are read twice, so every record in them is counted twice. "
                                    + (job.sources().size() > 1 ? "Remove the extra source from the job, or " : "")
                                    + "roll the TaskManager pods (or set lineflow.io/remediate: \"true\") and compare the affected windows.")
                    .with("assignedSplits", assigned)
                    .with("distinctPartitions", distinct)
                    .with("topicPartitions", partitions)
                    .with("kafkaSources", job.sources().size())
                    .with(
                            "sourceParallelism",
                            job.sources().stream()
                                    .mapToInt(FlinkObservation.Source::parallelism)
                                    .sum())
                    .build()
                    .asResult();
        }
        Optional<Rates> rates = rates(o, conf);
        if (rates.isEmpty() || rates.get().produceRate() < conf.get(DUPLICATE_MIN_RATE)) {
            return HealthResult.healthy();
        }
        Rates r = rates.get();
        if (r.ratio() < conf.get(DUPLICATE_RATIO)) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.DUPLICATE_CONSUMPTION,
                        Severity.CRITICAL,
                        "The Kafka source"
                                + (job.sources().size() > 1 ? "s (" + sourceNames(job) + ") emit " : " emits ")
                                + round(r.sourceRate()) + " records/s while the topic is consumed at "
                                + round(r.produceRate() + r.catchUpRate())
                                + " records/s (ratio " + round(r.ratio())
                                + "): records are being read more than once, which doubles the counts even though the job looks healthy. "
                                + "Roll the TaskManager pods (or set lineflow.io/remediate: \"true\") and compare the affected windows.")
                .with("ratio", round(r.ratio()))
                .with("sourceRecordsPerSecond", round(r.sourceRate()))
                .with("topicProduceRate", round(r.produceRate()))
                .with("lagShrinkRate", round(r.catchUpRate()))
                .with("sampleSpanSeconds", r.span().toSeconds())
                .with("kafkaSources", job.sources().size())
                .build()
                .asResult();
    }

    private static String sourceNames(Job job) {
        return String.join(
                ", ",
                job.sources().stream().map(FlinkObservation.Source::vertexName).toList());
    }

    // --- helpers -------------------------------------------------------------------------------

    private static Job job(Observation o) {
        return o.flink() != null && o.flink().ok() ? o.flink().job() : null;
    }

    private static Optional<Sample> oldestWithin(
            Observation o, Duration window, java.util.function.Predicate<Sample> has) {
        Instant from = o.observedAt().minus(window);
        return o.history().stream()
                .filter(s -> !s.at().isBefore(from) && has.test(s))
                .findFirst();
    }

    private static double secondsBetween(Instant a, Instant b) {
        return Duration.between(a, b).toMillis() / 1000.0;
    }

    private static double slope(List<double[]> pts) {
        double mx = 0, my = 0;
        for (double[] p : pts) {
            mx += p[0];
            my += p[1];
        }
        mx /= pts.size();
        my /= pts.size();
        double num = 0, den = 0;
        for (double[] p : pts) {
            num += (p[0] - mx) * (p[1] - my);
            den += (p[0] - mx) * (p[0] - mx);
        }
        return den == 0 ? 0 : num / den;
    }

    static double round(double v) {
        return Math.round(v * 100.0) / 100.0;
    }

    /** "1h 5m", "40s". */
    public static String human(Duration d) {
        long s = d.toSeconds();
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m" + (s % 60 == 0 ? "" : " " + (s % 60) + "s");
        }
        return (s / 3600) + "h" + ((s % 3600) / 60 == 0 ? "" : " " + (s % 3600) / 60 + "m");
    }
}
