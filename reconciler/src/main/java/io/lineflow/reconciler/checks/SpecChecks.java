package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.model.FindingCode.CHECKPOINTING_DISABLED;
import static io.lineflow.reconciler.model.FindingCode.CHECKPOINTS_NOT_RETAINED;
import static io.lineflow.reconciler.model.FindingCode.CHECKPOINT_INTERVAL_DEFAULTED;
import static io.lineflow.reconciler.model.FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE;
import static io.lineflow.reconciler.model.FindingCode.HA_DISABLED;
import static io.lineflow.reconciler.model.FindingCode.RESTART_STRATEGY_NONE;
import static io.lineflow.reconciler.model.FindingCode.SAVEPOINT_DIR_MISSING;
import static io.lineflow.reconciler.model.FindingCode.UPGRADE_MODE_STATELESS;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.model.SpecObservation.Mount;
import io.lineflow.settings.LineflowOptions;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The spec checks: pure functions of a FlinkDeployment's spec, one per finding code. */
public final class SpecChecks implements Check {

    private static final Set<String> HEAP_STORAGE = Set.of("jobmanager");
    private static final Set<String> NO_RESTART = Set.of("none", "off", "disable");
    private static final Set<String> DURABLE_SCHEMES = Set.of(
            "s3", "s3a", "s3p", "s3n", "gs", "hdfs", "viewfs", "abfs", "abfss", "wasb", "wasbs", "oss", "cosn", "obs",
            "dbfs");

    /** The spec alone decides: the runtime figures, the options and the clock do not count. */
    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        return evaluate(o.spec());
    }

    /** All spec checks joined; what `lint` runs on a manifest. */
    public static HealthResult evaluate(SpecObservation spec) {
        return checkpointingDisabled(spec)
                .join(checkpointStorageNotDurable(spec))
                .join(checkpointsNotRetained(spec))
                .join(upgradeModeStateless(spec))
                .join(haDisabled(spec))
                .join(savepointDirMissing(spec))
                .join(restartStrategyNone(spec));
    }

    /**
     * The job's own switch for checkpointing, the job's option itself (the settings module). {@code
     * false} turns checkpointing off whatever the interval.
     */
    static final ConfigOption<Boolean> LINEFLOW_CHECKPOINTING = LineflowOptions.CHECKPOINTING_ENABLED;

    /**
     * The interval the Flink Kubernetes Operator sets when a {@code last-state} deployment sets
     * none ({@code FlinkConfigBuilder.applyJobConfig}, {@code DEFAULT_CHECKPOINTING_INTERVAL}: the
     * same in 1.10.0 and 1.15.0). It sets none for {@code stateless} or {@code savepoint}.
     */
    static final Duration OPERATOR_LAST_STATE_INTERVAL = Duration.ofMinutes(5);

    /**
     * CHECKPOINTING_DISABLED: what the job will really run with, decided in this order.
     *
     * <ol>
     *   <li>lineflow's job ({@link SpecObservation#lineflowJob()}) with its own switch
     *       {@code lineflow.checkpointing.enabled=false}, in the configuration or the job's
     *       arguments: off whatever the interval;
     *   <li>an explicit {@code execution.checkpointing.interval} (for lineflow's job its arguments
     *       over the configuration, as the job merges them): on if a positive duration, else off;
     *   <li>unset, {@code last-state}: the operator's 5 minutes. On, but reported (INFO): up to five
     *       minutes of input replayed after every failure, which Kafka's retention must cover;
     *   <li>unset, lineflow's job: the job's own default (60 s, {@code JobConfig});
     *   <li>unset otherwise: Flink's default, which is no checkpoints at all, unless the job's own
     *       code turns them on, which the reconciler cannot see: reported as off.
     * </ol>
     */
    public static HealthResult checkpointingDisabled(SpecObservation spec) {
        boolean lineflow = spec.lineflowJob();
        FlinkConf c = new FlinkConf(lineflow ? spec.jobSettings() : spec.flinkConfiguration());
        String where = spec.jobArgs().contains("--" + LINEFLOW_CHECKPOINTING.key())
                ? "spec.job.args"
                : "spec.flinkConfiguration";
        if (lineflow && c.lower(LINEFLOW_CHECKPOINTING).filter("false"::equals).isPresent()) {
            return disabled(LINEFLOW_CHECKPOINTING.key() + " is false in " + where
                            + ", so the job takes no checkpoints whatever the interval")
                    .with("key", LINEFLOW_CHECKPOINTING.key())
                    .with("value", "false")
                    .build()
                    .asResult();
        }
        Optional<String> raw = c.get(CheckpointingOptions.CHECKPOINTING_INTERVAL);
        if (raw.isPresent()) {
            Optional<Duration> interval = c.value(CheckpointingOptions.CHECKPOINTING_INTERVAL);
            if (interval.isPresent()
                    && !interval.get().isZero()
                    && !interval.get().isNegative()) {
                return HealthResult.healthy();
            }
            return disabled("execution.checkpointing.interval is '" + raw.get()
                            + "', which is not a positive duration, so Flink takes no checkpoints")
                    .with("key", c.keyOf(CheckpointingOptions.CHECKPOINTING_INTERVAL))
                    .with("value", raw.get())
                    .build()
                    .asResult();
        }
        if (spec.upgradeMode() == UpgradeMode.LAST_STATE) {
            return Finding.of(
                            CHECKPOINT_INTERVAL_DEFAULTED,
                            Severity.INFO,
                            "execution.checkpointing.interval is unset, so the operator sets "
                                    + OPERATOR_LAST_STATE_INTERVAL.toMinutes()
                                    + " min for this last-state deployment: after every failure up to that much input is "
                                    + "replayed, and Kafka's retention must cover it. Set the interval explicitly.")
                    .with("key", CheckpointingOptions.CHECKPOINTING_INTERVAL.key())
                    .with("value", OPERATOR_LAST_STATE_INTERVAL.toSeconds() + " s (operator default)")
                    .build()
                    .asResult();
        }
        if (lineflow) {
            return HealthResult.healthy(); // the job's own default interval
        }
        String mode = upgradeModeText(spec);
        return disabled("execution.checkpointing.interval is unset and spec.job.upgradeMode is " + mode
                        + ", for which the operator sets no interval; Flink's default is no checkpoints, so "
                        + "checkpointing depends on the job's own code, which the reconciler cannot see")
                .with("key", CheckpointingOptions.CHECKPOINTING_INTERVAL.key())
                .with("value", "unset")
                .build()
                .asResult();
    }

    private static Finding.Builder disabled(String why) {
        return Finding.of(
                CHECKPOINTING_DISABLED,
                Severity.CRITICAL,
                why
                        + ": after any restart the windows are rebuilt from wherever the source resumes, losing or doubling counts. "
                        + "Set execution.checkpointing.interval (e.g. '60 s') in spec.flinkConfiguration and leave "
                        + LINEFLOW_CHECKPOINTING.key() + " unset.");
    }

    /** CHECKPOINT_STORAGE_NOT_DURABLE: checkpoints in JobManager heap, or on a path no durable volume backs. */
    public static HealthResult checkpointStorageNotDurable(SpecObservation spec) {
        FlinkConf c = new FlinkConf(spec.flinkConfiguration());
        Optional<String> storage = c.lower(CheckpointingOptions.CHECKPOINT_STORAGE);
        Optional<String> backend = c.lower(StateBackendOptions.STATE_BACKEND);
        Optional<String> dir = c.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        String fix =
                " Set execution.checkpointing.storage: filesystem and execution.checkpointing.dir to s3://…, or to a path on a PersistentVolumeClaim mounted in JobManager and TaskManager pods.";
        if (storage.filter(HEAP_STORAGE::contains).isPresent()
                || backend.filter(HEAP_STORAGE::contains).isPresent()) {
            String key = storage.isPresent()
                    ? c.keyOf(CheckpointingOptions.CHECKPOINT_STORAGE)
                    : c.keyOf(StateBackendOptions.STATE_BACKEND);
            return notDurable("Checkpoints are kept in JobManager heap (" + key
                            + ": jobmanager); they vanish with the JobManager pod." + fix)
                    .with("key", key)
                    .with("value", "jobmanager")
                    .build()
                    .asResult();
        }
        if (dir.isEmpty()) {
            return notDurable(
                            "No checkpoint directory (execution.checkpointing.dir / state.checkpoints.dir) is set, so Flink keeps checkpoints in JobManager heap; they vanish with the JobManager pod."
                                    + fix)
                    .with("key", CheckpointingOptions.CHECKPOINTS_DIRECTORY.key())
                    .build()
                    .asResult();
        }
        String path = dir.get();
        String scheme = schemeOf(path);
        if (scheme != null && DURABLE_SCHEMES.contains(scheme)) {
            return HealthResult.healthy();
        }
        if (scheme != null && !scheme.equals("file")) {
            // Unknown scheme: trust the user; Flink will fail loudly if no file system serves it.
            return HealthResult.healthy();
        }
        String local = localPath(path);
        String jm = coverage(local, spec.jobManagerMounts());
        String tm = coverage(local, spec.taskManagerMounts());
        if (jm == null && tm == null) {
            return HealthResult.healthy();
        }
        String where = jm != null ? "JobManager: " + jm : "TaskManager: " + tm;
        return notDurable("Checkpoint directory " + path + " is a local path that no durable volume backs (" + where
                        + "); checkpoints are lost when the pod goes." + fix)
                .with("key", c.keyOf(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .with("value", path)
                .with("jobManagerMount", jm == null ? "durable" : jm)
                .with("taskManagerMount", tm == null ? "durable" : tm)
                .build()
                .asResult();
    }

    /**
     * CHECKPOINTS_NOT_RETAINED: the retention is not RETAIN_ON_CANCELLATION. Unset, an application
     * deployment is retained: the operator sets RETAIN_ON_CANCELLATION for every job it deploys
     * ({@code FlinkConfigBuilder.applyJobConfig}, 1.10.0 and 1.15.0); a session cluster's own
     * default is Flink's, NO_EXTERNALIZED_CHECKPOINTS.
     */
    public static HealthResult checkpointsNotRetained(SpecObservation spec) {
        FlinkConf c = new FlinkConf(spec.flinkConfiguration());
        Optional<String> set = c.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION);
        if (set.isEmpty() && spec.hasJob()) {
            return HealthResult.healthy();
        }
        String value = set.orElse("NO_EXTERNALIZED_CHECKPOINTS (default)");
        if (value.equalsIgnoreCase("RETAIN_ON_CANCELLATION")) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        CHECKPOINTS_NOT_RETAINED,
                        Severity.CRITICAL,
                        "Checkpoints are not retained on cancellation ("
                                + CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION.key() + " is " + value
                                + "): a cancel or a failed upgrade deletes the only state to restore from. "
                                + "Set it to RETAIN_ON_CANCELLATION.")
                .with("key", CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION.key())
                .with("value", value)
                .build()
                .asResult();
    }

    /** UPGRADE_MODE_STATELESS: an application whose upgrades throw its state away. */
    public static HealthResult upgradeModeStateless(SpecObservation spec) {
        if (!spec.hasJob()) {
            return HealthResult.healthy();
        }
        if (spec.upgradeMode() != null && spec.upgradeMode() != UpgradeMode.STATELESS) {
            return HealthResult.healthy();
        }
        String mode = upgradeModeText(spec);
        return Finding.of(
                        UPGRADE_MODE_STATELESS,
                        Severity.CRITICAL,
                        "spec.job.upgradeMode is " + mode
                                + ": every spec change restarts the job with empty state, so open windows are lost. "
                                + "Use last-state (needs HA) or savepoint.")
                .with("field", "spec.job.upgradeMode")
                .with("value", mode)
                .build()
                .asResult();
    }

    /** HA_DISABLED: no JobManager high availability (worse with 2+ JobManagers or last-state upgrades). */
    public static HealthResult haDisabled(SpecObservation spec) {
        FlinkConf c = new FlinkConf(spec.flinkConfiguration());
        Optional<String> type = c.lower(HighAvailabilityOptions.HA_MODE);
        boolean off = type.isEmpty() || type.get().equals("none");
        int replicas = spec.jobManagerReplicas();
        if (!off) {
            if (c.get(HighAvailabilityOptions.HA_STORAGE_PATH).isEmpty()) {
                return Finding.of(
                                HA_DISABLED,
                                Severity.CRITICAL,
                                "High availability is " + type.get()
                                        + " but high-availability.storageDir is not set; Flink will not start the JobManager. "
                                        + "Set high-availability.storageDir to durable storage (s3://… or a PVC path).")
                        .with("key", HighAvailabilityOptions.HA_STORAGE_PATH.key())
                        .with("haType", type.get())
                        .build()
                        .asResult();
            }
            return HealthResult.healthy();
        }
        String message = replicas > 1
                ? "spec.jobManager.replicas is " + replicas
                        + " but high availability is off: the standby JobManagers can never take over, and a JobManager failure loses the running job. "
                : "High availability is off (" + HighAvailabilityOptions.HA_MODE.key()
                        + " unset or NONE): a JobManager failure loses the job's checkpoint pointer, so recovery restarts from the last savepoint or from nothing. ";
        return Finding.of(
                        HA_DISABLED,
                        Severity.CRITICAL,
                        message + "Set high-availability.type: kubernetes and high-availability.storageDir.")
                .with("key", HighAvailabilityOptions.HA_MODE.key())
                .with("value", type.orElse(null))
                .with("jobManagerReplicas", replicas)
                .build()
                .asResult();
    }

    /** SAVEPOINT_DIR_MISSING: no savepoint directory, so the operator cannot take upgrade savepoints. */
    public static HealthResult savepointDirMissing(SpecObservation spec) {
        FlinkConf c = new FlinkConf(spec.flinkConfiguration());
        if (c.get(CheckpointingOptions.SAVEPOINT_DIRECTORY).isPresent()) {
            return HealthResult.healthy();
        }
        boolean needed = spec.upgradeMode() == UpgradeMode.SAVEPOINT;
        return Finding.of(
                        SAVEPOINT_DIR_MISSING,
                        needed ? Severity.CRITICAL : Severity.WARNING,
                        "No savepoint directory (" + CheckpointingOptions.SAVEPOINT_DIRECTORY.key()
                                + " / state.savepoints.dir) is set: "
                                + (needed
                                        ? "upgradeMode savepoint cannot take its upgrade savepoint. "
                                        : "manual and upgrade savepoints cannot be taken. ")
                                + "Set it to durable storage next to the checkpoint directory.")
                .with("key", CheckpointingOptions.SAVEPOINT_DIRECTORY.key())
                .with("upgradeMode", spec.upgradeMode() == null ? null : SpecObservation.written(spec.upgradeMode()))
                .build()
                .asResult();
    }

    /** RESTART_STRATEGY_NONE: the job fails for good on the first error. */
    public static HealthResult restartStrategyNone(SpecObservation spec) {
        FlinkConf c = new FlinkConf(spec.flinkConfiguration());
        Optional<String> type = c.lower(RestartStrategyOptions.RESTART_STRATEGY);
        if (type.isEmpty() || !NO_RESTART.contains(type.get())) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        RESTART_STRATEGY_NONE,
                        Severity.CRITICAL,
                        c.keyOf(RestartStrategyOptions.RESTART_STRATEGY) + " is " + type.get()
                                + ": the first TaskManager loss or bad record fails the job for good. Use exponential-delay (Flink's default with checkpointing) or fixed-delay.")
                .with("key", c.keyOf(RestartStrategyOptions.RESTART_STRATEGY))
                .with("value", type.get())
                .build()
                .asResult();
    }

    /** {@code spec.job.upgradeMode} for messages: unset is the operator's default, stateless. */
    private static String upgradeModeText(SpecObservation spec) {
        return spec.upgradeMode() == null ? "stateless (default)" : SpecObservation.written(spec.upgradeMode());
    }

    private static Finding.Builder notDurable(String message) {
        return Finding.of(CHECKPOINT_STORAGE_NOT_DURABLE, Severity.CRITICAL, message);
    }

    /** The URI scheme, lower-case, or null for a plain path. */
    static String schemeOf(String path) {
        int colon = path.indexOf(':');
        if (colon <= 0 || path.startsWith("/")) {
            return null;
        }
        String scheme = path.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
        return scheme.matches("[a-z][a-z0-9+.-]*") ? scheme : null;
    }

    static String localPath(String path) {
        if (path.regionMatches(true, 0, "file:", 0, 5)) {
            try {
                String p = URI.create(path).getPath();
                if (p != null) {
                    return p;
                }
            } catch (IllegalArgumentException ignored) {
                // fall through to the crude strip below
            }
            return path.substring(5).replaceFirst("^//", "");
        }
        return path;
    }

    /** Null when a durable mount covers {@code path}; otherwise what covers it. */
    static String coverage(String path, List<Mount> mounts) {
        Mount best = null;
        for (Mount m : mounts) {
            String mp = m.mountPath().endsWith("/") ? m.mountPath() : m.mountPath() + "/";
            if ((path + "/").startsWith(mp)
                    && (best == null
                            || m.mountPath().length() > best.mountPath().length())) {
                best = m;
            }
        }
        if (best == null) {
            return "not on any volume (container filesystem)";
        }
        if (!best.durable()) {
            return "on volume '" + best.volumeName() + "' of type " + best.volumeType() + ", which dies with the pod";
        }
        return null;
    }
}
