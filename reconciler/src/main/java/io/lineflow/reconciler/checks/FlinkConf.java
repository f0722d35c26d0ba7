package io.lineflow.reconciler.checks;

import org.apache.flink.util.TimeUtils;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads Flink settings from a FlinkDeployment's {@code flinkConfiguration}, honouring the older
 * key names Flink 1.20 still accepts. The first key listed is the current one.
 */
public final class FlinkConf {

    public static final String[] CHECKPOINT_INTERVAL = {"execution.checkpointing.interval"};
    public static final String[] CHECKPOINT_MODE = {"execution.checkpointing.mode"};
    public static final String[] CHECKPOINT_TIMEOUT = {"execution.checkpointing.timeout"};
    public static final String[] TOLERABLE_FAILURES = {"execution.checkpointing.tolerable-failed-checkpoints"};
    public static final String[] RETENTION = {"execution.checkpointing.externalized-checkpoint-retention"};
    public static final String[] CHECKPOINT_STORAGE = {"execution.checkpointing.storage", "state.checkpoint-storage"};
    public static final String[] CHECKPOINT_DIR = {"execution.checkpointing.dir", "state.checkpoints.dir"};
    public static final String[] SAVEPOINT_DIR = {"execution.checkpointing.savepoint-dir", "state.savepoints.dir"};
    public static final String[] STATE_BACKEND = {"state.backend.type", "state.backend"};
    public static final String[] HA_TYPE = {"high-availability.type", "high-availability"};
    public static final String[] HA_STORAGE_DIR = {"high-availability.storageDir", "high-availability.storage-dir"};
    public static final String[] RESTART_STRATEGY = {"restart-strategy.type", "restart-strategy"};

    /** Flink's default checkpoint timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    private final Map<String, String> conf;

    public FlinkConf(Map<String, String> conf) {
        this.conf = conf == null ? Map.of() : conf;
    }

    /** The value of the first key present and non-blank, trimmed. */
    public Optional<String> get(String... keys) {
        for (String key : keys) {
            String v = conf.get(key);
            if (v != null && !v.isBlank()) {
                return Optional.of(v.trim());
            }
        }
        return Optional.empty();
    }

    /** The key that supplied {@link #get}, for evidence; the current key if none did. */
    public String keyOf(String... keys) {
        for (String key : keys) {
            String v = conf.get(key);
            if (v != null && !v.isBlank()) {
                return key;
            }
        }
        return keys[0];
    }

    /** Lower-case value. */
    public Optional<String> lower(String... keys) {
        return get(keys).map(v -> v.toLowerCase(Locale.ROOT));
    }

    /** A Flink duration ("30 s", "1min", "60000" = ms); empty if absent or unparsable. */
    public Optional<Duration> duration(String... keys) {
        return get(keys).flatMap(FlinkConf::parseDuration);
    }

    public Optional<Integer> integer(String... keys) {
        return get(keys).flatMap(v -> {
            try {
                return Optional.of(Integer.parseInt(v));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    static Optional<Duration> parseDuration(String v) {
        try {
            return Optional.of(TimeUtils.parseDuration(v));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
