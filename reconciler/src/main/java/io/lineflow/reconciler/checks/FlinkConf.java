package io.lineflow.reconciler.checks;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A FlinkDeployment's {@code flinkConfiguration}, read through Flink's own {@link ConfigOption}s
 * (e.g. {@code CheckpointingOptions.CHECKPOINTS_DIRECTORY}): an option's current key first, then the
 * older keys Flink still accepts for it, as Flink itself reads them. Blank values count as unset.
 */
public final class FlinkConf {
    private final Map<String, String> raw = new LinkedHashMap<>();
    private final Configuration typed;

    public FlinkConf(Map<String, String> conf) {
        if (conf != null) {
            conf.forEach((k, v) -> {
                if (v != null && !v.isBlank()) {
                    raw.put(k, v.trim());
                }
            });
        }
        typed = Configuration.fromMap(raw);
    }

    /** The option's keys in the order Flink reads them: the current one, then its fallbacks. */
    static List<String> keys(ConfigOption<?> option) {
        List<String> keys = new ArrayList<>(List.of(option.key()));
        for (FallbackKey k : option.fallbackKeys()) {
            keys.add(k.getKey());
        }
        return keys;
    }

    /** The value as written (trimmed), from the first of the option's keys that is set. */
    public Optional<String> get(ConfigOption<?> option) {
        return keys(option).stream().map(raw::get).filter(v -> v != null).findFirst();
    }

    /** The key that supplied {@link #get}, for evidence; the current key if none did. */
    public String keyOf(ConfigOption<?> option) {
        return keys(option).stream().filter(raw::containsKey).findFirst().orElse(option.key());
    }

    /** Lower-case value as written. */
    public Optional<String> lower(ConfigOption<?> option) {
        return get(option).map(v -> v.toLowerCase(Locale.ROOT));
    }

    /**
     * The value as Flink reads it, when it is set: empty when unset, or when Flink could not read it
     * (the job would then fail to start; the checks report what was written).
     */
    public <T> Optional<T> value(ConfigOption<T> option) {
        if (get(option).isEmpty()) {
            return Optional.empty();
        }
        try {
            return typed.getOptional(option);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** {@link #value}, or Flink's default for the option when it is unset or unreadable. */
    public <T> T valueOrDefault(ConfigOption<T> option) {
        return value(option).orElse(option.defaultValue());
    }
}
