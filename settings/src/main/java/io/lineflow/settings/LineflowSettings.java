package io.lineflow.settings;

import io.lineflow.rules.Rules;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The one reading of the job's settings: how a deployment's sources merge, what is checked, and
 * the {@link Rules} they give. The job reads its own process with it; the reconciler's audit reads
 * the same sources from a FlinkDeployment (the properties file from its ConfigMap) with it, so the
 * audit recounts with exactly the window, lateness and limits the job runs with.
 *
 * <p>Sources, later ones winning: the defaults given (the job's for Flink's checkpointing keys),
 * the cluster configuration (a deployment's {@code spec.flinkConfiguration}), the properties file
 * named by {@code --config}, {@code LINEFLOW_*} environment variables, then {@code --key value}
 * arguments. Every problem found is reported at once, each with its key, its value (masked if
 * sensitive) and what is allowed.
 */
public final class LineflowSettings {
    private LineflowSettings() {}

    /** The argument naming a properties file. */
    public static final String CONFIG_FILE_ARG = "config";

    private static final Duration MAX_FUTURE_LIMIT = Duration.ofDays(366);
    private static final Instant LATEST_EARLIEST = Instant.parse("9999-12-31T23:59:59Z");

    /** Reads the properties file a {@code --config} argument names. */
    @FunctionalInterface
    public interface PropertiesFiles {
        /**
         * The file's properties.
         *
         * @throws IOException when it cannot be read; the message says why
         */
        Properties read(String path) throws IOException;
    }

    /** The files of this machine: where the job runs, the file itself. */
    public static final PropertiesFiles LOCAL_FILES = path -> {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            props.load(in);
        }
        return props;
    };

    /**
     * The lineflow settings a deployment gives its job, merged and checked as the job does at start
     * (its lineflow keys; Flink's own keys are the job's and the operator's to judge).
     *
     * @throws ConfigException listing every problem
     */
    public static Configuration read(
            ReadableConfig cluster, String[] args, Map<String, String> env, PropertiesFiles files) {
        Configuration conf = merge(new Configuration(), cluster, args, env, files, List.of());
        List<String> problems = new ArrayList<>();
        check(conf, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return conf;
    }

    /**
     * Merges every source over {@code defaults}, checking only that values parse (the lineflow
     * options and {@code alsoTyped}) and that lineflow keys are known.
     *
     * @throws ConfigException listing every problem
     */
    public static Configuration merge(
            Configuration defaults,
            ReadableConfig cluster,
            String[] args,
            Map<String, String> env,
            PropertiesFiles files,
            List<ConfigOption<?>> alsoTyped) {
        List<String> problems = new ArrayList<>();
        Map<String, String> params;
        try {
            params = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of("arguments " + Arrays.toString(args) + " are malformed: " + e.getMessage()
                    + "; expected --key value pairs"));
        }
        Configuration conf = new Configuration(defaults);
        conf.addAll(Configuration.fromMap(cluster.toMap()));
        if (params.containsKey(CONFIG_FILE_ARG)) {
            readProperties(files, params.get(CONFIG_FILE_ARG), conf, problems);
        }
        readEnvironment(env, conf);
        params.forEach((k, v) -> {
            if (!k.equals(CONFIG_FILE_ARG)) {
                conf.setString(k, v);
            }
        });
        checkKnownKeysAndTypes(conf, alsoTyped, defaults, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return conf;
    }

    /** The checks of the lineflow settings that need more than types: required keys and ranges. */
    public static void check(ReadableConfig conf, List<String> problems) {
        require(conf, LineflowOptions.KAFKA_BOOTSTRAP_SERVERS, "host:port[,host:port...]", problems);
        require(conf, LineflowOptions.KAFKA_TOPIC, "a Kafka topic name", problems);
        checkJdbc(conf, problems);
        positive(conf, LineflowOptions.WINDOW_SIZE, problems);
        notNegative(conf, LineflowOptions.ALLOWED_LATENESS, problems);
        notNegative(conf, LineflowOptions.OUT_OF_ORDERNESS, problems);
        positive(conf, LineflowOptions.IDLENESS, problems);
        positive(conf, LineflowOptions.IDLE_EMIT, problems);
        notNegative(conf, LineflowOptions.DOWNTIME_SILENT_FILL, problems);
        Duration maxFuture = conf.get(LineflowOptions.MAX_FUTURE);
        if (maxFuture.toMillis() <= 0 || maxFuture.compareTo(MAX_FUTURE_LIMIT) > 0) {
            // Bounded so that the latest accepted event time stays far inside what the window
            // arithmetic and PostgreSQL's timestamptz can hold.
            problems.add(problem(conf, LineflowOptions.MAX_FUTURE.key(), "a duration from 1 ms to 366 d"));
        }
        checkEarliestEventTime(conf, problems);
        MemorySize max = conf.get(LineflowOptions.MAX_EVENT_SIZE);
        if (max.getBytes() < 1 || max.getBytes() > Integer.MAX_VALUE) {
            problems.add(problem(conf, LineflowOptions.MAX_EVENT_SIZE.key(), "a size from 1 b to 2 gb"));
        }
        long manifest = conf.get(LineflowOptions.ROCKSDB_MAX_MANIFEST_SIZE).getBytes();
        if (manifest < MemorySize.parse("1 kb").getBytes()
                || manifest > MemorySize.parse("1 gb").getBytes()) {
            problems.add(problem(
                    conf,
                    LineflowOptions.ROCKSDB_MAX_MANIFEST_SIZE.key(),
                    "a size from 1 kb to 1 gb (RocksDB's own limit)"));
        }
        atLeast(conf, LineflowOptions.SINK_BATCH_SIZE, 1, problems);
        atLeast(conf, LineflowOptions.SINK_MAX_RETRIES, 0, problems);
        notNegative(conf, LineflowOptions.SINK_BATCH_INTERVAL, problems);
    }

    /** The database URL's check, also for tools that only talk to the database. */
    public static void checkJdbc(ReadableConfig conf, List<String> problems) {
        String url = conf.get(LineflowOptions.JDBC_URL);
        if (url == null || url.isBlank()) {
            problems.add(missing(LineflowOptions.JDBC_URL, "jdbc:postgresql://host:port/database"));
        } else if (!url.startsWith("jdbc:postgresql:")) {
            problems.add(problem(conf, LineflowOptions.JDBC_URL.key(), "jdbc:postgresql://host:port/database"));
        }
    }

    /** The rules' settings of a (checked) configuration: the parser's limits, windows, carry. */
    public static Rules rules(ReadableConfig conf) {
        return new Rules(
                conf.get(LineflowOptions.WINDOW_SIZE).toMillis(),
                conf.get(LineflowOptions.ALLOWED_LATENESS).toMillis(),
                conf.get(LineflowOptions.OUT_OF_ORDERNESS).toMillis(),
                (int) conf.get(LineflowOptions.MAX_EVENT_SIZE).getBytes(),
                conf.get(LineflowOptions.MAX_FUTURE).toMillis(),
                Instant.parse(conf.get(LineflowOptions.EARLIEST_EVENT_TIME)).toEpochMilli(),
                conf.get(LineflowOptions.DOWNTIME_SILENT_FILL).toMillis());
    }

    /** The configuration as text for the log, sensitive values masked by Flink's own rule. */
    public static String describe(ReadableConfig conf) {
        return new TreeMap<>(conf.toMap())
                .entrySet().stream()
                        .map(e -> e.getKey() + "=" + shown(e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", ", "{", "}"));
    }

    /** The entries under {@code prefix}, with the prefix removed (for Kafka and JDBC properties). */
    public static Properties withPrefix(ReadableConfig conf, String prefix) {
        Properties props = new Properties();
        conf.toMap().forEach((k, v) -> {
            if (k.startsWith(prefix) && k.length() > prefix.length()) {
                props.setProperty(k.substring(prefix.length()), v);
            }
        });
        return props;
    }

    /** The environment variable a key can be given in, e.g. {@code LINEFLOW_JDBC_PASSWORD}. */
    public static String envName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** A key that is not set: what to set, also as an environment variable for lineflow's keys. */
    public static String missing(ConfigOption<?> option, String allowed) {
        String env = option.key().startsWith(LineflowOptions.PREFIX) ? " (or env " + envName(option.key()) + ")" : "";
        return option.key() + " is not set" + env + "; expected " + allowed;
    }

    /** A value that is not allowed: the key, the value as given (masked if sensitive) and what is. */
    public static String problem(ReadableConfig conf, String key, String allowed) {
        return key + " = '" + shown(key, conf.toMap().get(key)) + "' is invalid; expected " + allowed;
    }

    private static void readProperties(PropertiesFiles files, String file, Configuration conf, List<String> problems) {
        Properties props;
        try {
            props = files.read(file);
        } catch (IOException e) {
            problems.add("--config " + file + " cannot be read (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + "); expected a readable properties file");
            return;
        }
        props.stringPropertyNames()
                .forEach(k -> conf.setString(k, props.getProperty(k).trim()));
    }

    private static void readEnvironment(Map<String, String> env, Configuration conf) {
        for (ConfigOption<?> option : LineflowOptions.ALL) {
            String value = env.get(envName(option.key()));
            if (value != null) {
                conf.setString(option.key(), value);
            }
        }
        // Pass-through properties: LINEFLOW_KAFKA_PROPERTIES_SASL_JAAS_CONFIG -> sasl.jaas.config
        for (String prefix : List.of(LineflowOptions.KAFKA_PROPERTIES_PREFIX, LineflowOptions.JDBC_PROPERTIES_PREFIX)) {
            String envPrefix = envName(prefix);
            env.forEach((name, value) -> {
                if (name.startsWith(envPrefix) && name.length() > envPrefix.length()) {
                    String property = name.substring(envPrefix.length())
                            .toLowerCase(Locale.ROOT)
                            .replace('_', '.');
                    conf.setString(prefix + property, value);
                }
            });
        }
    }

    private static void checkKnownKeysAndTypes(
            Configuration conf, List<ConfigOption<?>> alsoTyped, ReadableConfig examples, List<String> problems) {
        Set<String> known = LineflowOptions.ALL.stream().map(ConfigOption::key).collect(Collectors.toSet());
        for (String key : new TreeMap<>(conf.toMap()).keySet()) {
            String retired = LineflowOptions.RETIRED.get(key);
            if (retired != null) {
                problems.add(key + "=" + conf.toMap().get(key) + " is retired: " + retired);
            } else if (key.startsWith(LineflowOptions.PREFIX)
                    && !known.contains(key)
                    && !key.startsWith(LineflowOptions.KAFKA_PROPERTIES_PREFIX)
                    && !key.startsWith(LineflowOptions.JDBC_PROPERTIES_PREFIX)) {
                problems.add(key + " is not a lineflow option; known options: "
                        + known.stream().sorted().collect(Collectors.joining(", ")));
            }
        }
        List<ConfigOption<?>> typed = new ArrayList<>(LineflowOptions.ALL);
        typed.addAll(alsoTyped);
        for (ConfigOption<?> option : typed) {
            try {
                conf.get(option);
            } catch (IllegalArgumentException e) {
                problems.add(problem(conf, option.key(), allowed(option, examples)));
            }
        }
    }

    private static void checkEarliestEventTime(ReadableConfig conf, List<String> problems) {
        String text = conf.get(LineflowOptions.EARLIEST_EVENT_TIME);
        String allowed = "an ISO-8601 instant such as 2000-01-01T00:00:00Z, from 1970-01-01T00:00:00Z to"
                + " 9999-12-31T23:59:59Z (window starts are computed for non-negative times)";
        try {
            Instant earliest = Instant.parse(text);
            if (earliest.isBefore(Instant.EPOCH) || earliest.isAfter(LATEST_EARLIEST)) {
                problems.add(problem(conf, LineflowOptions.EARLIEST_EVENT_TIME.key(), allowed));
            }
        } catch (DateTimeParseException e) {
            problems.add(problem(conf, LineflowOptions.EARLIEST_EVENT_TIME.key(), allowed));
        }
    }

    private static void require(
            ReadableConfig conf, ConfigOption<String> option, String allowed, List<String> problems) {
        String value = conf.get(option);
        if (value == null || value.isBlank()) {
            problems.add(missing(option, allowed));
        }
    }

    private static void positive(ReadableConfig conf, ConfigOption<Duration> option, List<String> problems) {
        if (conf.get(option).toMillis() <= 0) {
            problems.add(problem(conf, option.key(), "a duration of at least 1 ms"));
        }
    }

    private static void notNegative(ReadableConfig conf, ConfigOption<Duration> option, List<String> problems) {
        if (conf.get(option).isNegative()) {
            problems.add(problem(conf, option.key(), "a duration of 0 or more"));
        }
    }

    private static void atLeast(ReadableConfig conf, ConfigOption<Integer> option, int min, List<String> problems) {
        if (conf.get(option) < min) {
            problems.add(problem(conf, option.key(), "an integer of " + min + " or more"));
        }
    }

    private static String shown(String key, String value) {
        return GlobalConfiguration.isSensitive(key) ? "******" : value;
    }

    /** What a value of {@code option} looks like, from its default or the one {@code examples} holds. */
    private static String allowed(ConfigOption<?> option, ReadableConfig examples) {
        Object example = option.hasDefaultValue()
                ? option.defaultValue()
                : examples.getOptional(option).orElse(null);
        if (example instanceof Duration) {
            return "a duration such as '500 ms', '30 s', '5 min' or '1 h'";
        }
        if (example instanceof MemorySize) {
            return "a size such as '64 kb' or '1 mb'";
        }
        if (example instanceof Integer) {
            return "an integer";
        }
        if (example instanceof Boolean) {
            return "true or false";
        }
        if (example instanceof Enum) {
            return "one of "
                    + Arrays.stream(((Enum<?>) example).getDeclaringClass().getEnumConstants())
                            .map(Object::toString)
                            .collect(Collectors.joining(", "));
        }
        return "a valid value (" + option.description() + ")";
    }
}
