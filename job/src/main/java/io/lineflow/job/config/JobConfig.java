package io.lineflow.job.config;

import io.lineflow.job.state.BoundedRocksDBManifest;
import io.lineflow.rules.Rules;

import org.apache.flink.api.java.utils.ParameterTool;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.CheckpointingMode;

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
 * Builds the job's configuration and refuses a bad one before anything starts.
 *
 * <p>Sources, later ones winning: lineflow's defaults for Flink's checkpointing keys, the cluster
 * configuration, the properties file named by {@code --config}, {@code LINEFLOW_*} environment
 * variables, then {@code --key value} arguments. Every problem found is reported at once, each
 * with its key, its value (masked if sensitive) and what is allowed.
 */
public final class JobConfig {
    private JobConfig() {}

    /** The argument naming a properties file. */
    public static final String CONFIG_FILE_ARG = "config";

    private static final String ENV_PREFIX = "LINEFLOW_";
    private static final Set<String> STATE_BACKENDS = Set.of("hashmap", "rocksdb");
    private static final Duration MAX_FUTURE_LIMIT = Duration.ofDays(366);
    private static final Instant LATEST_EARLIEST = Instant.parse("9999-12-31T23:59:59Z");

    /** Flink keys lineflow sets explicitly unless the cluster or the user did. */
    private static Configuration checkpointDefaults() {
        Configuration c = new Configuration();
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(60));
        c.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
        c.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofSeconds(60));
        c.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMillis(500));
        c.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, 2);
        c.set(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS, 1);
        c.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        c.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        // Used only with RocksDB: bounds the MANIFEST every incremental checkpoint uploads whole.
        c.set(RocksDBOptions.OPTIONS_FACTORY, BoundedRocksDBManifest.class.getName());
        return c;
    }

    /**
     * Merges every source and validates the result for running the job.
     *
     * @throws ConfigException listing every problem
     */
    public static Configuration load(String[] args, Map<String, String> env, ReadableConfig cluster) {
        Configuration conf = merge(args, env, cluster);
        validateForJob(conf);
        return conf;
    }

    /** Merges every source, checking only that values parse and lineflow keys are known. */
    public static Configuration merge(String[] args, Map<String, String> env, ReadableConfig cluster) {
        List<String> problems = new ArrayList<>();
        ParameterTool params;
        try {
            params = ParameterTool.fromArgs(args);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(List.of("arguments " + Arrays.toString(args) + " are malformed: " + e.getMessage()
                    + "; expected --key value pairs"));
        }
        Configuration conf = checkpointDefaults();
        conf.addAll(Configuration.fromMap(cluster.toMap()));
        if (params.has(CONFIG_FILE_ARG)) {
            readProperties(params.get(CONFIG_FILE_ARG), conf, problems);
        }
        readEnvironment(env, conf);
        params.toMap().forEach((k, v) -> {
            if (!k.equals(CONFIG_FILE_ARG)) {
                conf.setString(k, v);
            }
        });
        checkKnownKeysAndTypes(conf, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return conf;
    }

    /** A configuration built from typed settings rather than a command line. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The job's configuration from typed settings, through the same merge and validation as a
     * deployment's (lineflow's defaults, then these settings): for tests, benchmarks and the
     * local run, which start the job in their own process.
     */
    public static final class Builder {
        private final Configuration settings = new Configuration();

        private Builder() {}

        /** Where the job reads: bootstrap servers, topic and consumer group, from the earliest offset. */
        public Builder kafka(String bootstrapServers, String topic, String groupId) {
            return set(LineflowOptions.KAFKA_BOOTSTRAP_SERVERS, bootstrapServers)
                    .set(LineflowOptions.KAFKA_TOPIC, topic)
                    .set(LineflowOptions.KAFKA_GROUP_ID, groupId)
                    .set(LineflowOptions.KAFKA_STARTING_OFFSETS, LineflowOptions.StartingOffsets.EARLIEST);
        }

        /** Where the job writes (a password, if any, comes from the environment as in production). */
        public Builder jdbc(String url, String user) {
            return set(LineflowOptions.JDBC_URL, url).set(LineflowOptions.JDBC_USER, user);
        }

        /** Checkpoints every {@code interval} into {@code dir}. */
        public Builder checkpoints(Duration interval, Path dir) {
            return set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval)
                    .set(
                            CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                            dir.toAbsolutePath().toUri().toString());
        }

        public <T> Builder set(ConfigOption<T> option, T value) {
            settings.set(option, value);
            return this;
        }

        /** A setting as a command line would give it: the key and its text. */
        public Builder set(String key, String value) {
            settings.setString(key, value);
            return this;
        }

        /** @throws ConfigException listing every problem, as at a job's start */
        public Configuration load() {
            return JobConfig.load(new String[0], Map.of(), settings);
        }
    }

    /** The checks that need more than types: required keys and ranges. */
    public static void validateForJob(Configuration conf) {
        List<String> problems = new ArrayList<>();
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
        if (conf.get(LineflowOptions.CHECKPOINTING_ENABLED)) {
            checkCheckpointing(conf, problems);
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /** The checks for tools that only talk to the database, such as the schema migration. */
    public static void validateForDatabase(Configuration conf) {
        List<String> problems = new ArrayList<>();
        checkJdbc(conf, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /** The rules' settings of a (validated) configuration: the parser's limits, windows, carry. */
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
    public static String describe(Configuration conf) {
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

    private static void readProperties(String file, Configuration conf, List<String> problems) {
        Path path = Path.of(file);
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(path)) {
            props.load(in);
        } catch (IOException e) {
            problems.add("--config " + file + " cannot be read (" + e.getClass().getSimpleName()
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

    private static void checkKnownKeysAndTypes(Configuration conf, List<String> problems) {
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
        typed.addAll(List.of(
                CheckpointingOptions.CHECKPOINTING_INTERVAL,
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingOptions.CHECKPOINTING_TIMEOUT,
                CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS,
                CheckpointingOptions.TOLERABLE_FAILURE_NUMBER,
                CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS,
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                CheckpointingOptions.INCREMENTAL_CHECKPOINTS));
        for (ConfigOption<?> option : typed) {
            try {
                conf.get(option);
            } catch (IllegalArgumentException e) {
                problems.add(problem(conf, option.key(), allowed(option)));
            }
        }
    }

    private static void checkEarliestEventTime(Configuration conf, List<String> problems) {
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

    private static void checkJdbc(Configuration conf, List<String> problems) {
        String url = conf.get(LineflowOptions.JDBC_URL);
        if (url == null || url.isBlank()) {
            problems.add(missing(LineflowOptions.JDBC_URL, "jdbc:postgresql://host:port/database"));
        } else if (!url.startsWith("jdbc:postgresql:")) {
            problems.add(problem(conf, LineflowOptions.JDBC_URL.key(), "jdbc:postgresql://host:port/database"));
        }
    }

    private static void checkCheckpointing(Configuration conf, List<String> problems) {
        Duration interval = conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL);
        if (interval == null || interval.toMillis() < 10) {
            problems.add(problem(
                    conf,
                    CheckpointingOptions.CHECKPOINTING_INTERVAL.key(),
                    "a duration of at least 10 ms (lineflow.checkpointing.enabled=false turns"
                            + " checkpointing off, and with it exact counts)"));
        }
        Duration timeout = conf.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT);
        if (timeout.toMillis() < 10) {
            problems.add(
                    problem(conf, CheckpointingOptions.CHECKPOINTING_TIMEOUT.key(), "a duration of at least 10 ms"));
        }
        if (conf.get(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER) < 0) {
            problems.add(problem(conf, CheckpointingOptions.TOLERABLE_FAILURE_NUMBER.key(), "an integer of 0 or more"));
        }
        if (conf.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS) < 1) {
            problems.add(
                    problem(conf, CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS.key(), "an integer of 1 or more"));
        }
        String dir = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        if (dir == null || dir.isBlank()) {
            problems.add(missing(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    "a durable URI such as s3://bucket/lineflow/checkpoints or a file:// path"
                            + " on a persistent volume; without it checkpoints live in"
                            + " JobManager memory and die with it"));
        }
        String backend = conf.get(StateBackendOptions.STATE_BACKEND);
        if (!STATE_BACKENDS.contains(backend.toLowerCase(Locale.ROOT))) {
            problems.add(problem(conf, StateBackendOptions.STATE_BACKEND.key(), "hashmap or rocksdb"));
        }
    }

    private static void require(
            Configuration conf, ConfigOption<String> option, String allowed, List<String> problems) {
        String value = conf.get(option);
        if (value == null || value.isBlank()) {
            problems.add(missing(option, allowed));
        }
    }

    private static void positive(Configuration conf, ConfigOption<Duration> option, List<String> problems) {
        if (conf.get(option).toMillis() <= 0) {
            problems.add(problem(conf, option.key(), "a duration of at least 1 ms"));
        }
    }

    private static void notNegative(Configuration conf, ConfigOption<Duration> option, List<String> problems) {
        if (conf.get(option).isNegative()) {
            problems.add(problem(conf, option.key(), "a duration of 0 or more"));
        }
    }

    private static void atLeast(Configuration conf, ConfigOption<Integer> option, int min, List<String> problems) {
        if (conf.get(option) < min) {
            problems.add(problem(conf, option.key(), "an integer of " + min + " or more"));
        }
    }

    private static String missing(ConfigOption<?> option, String allowed) {
        String env = option.key().startsWith(LineflowOptions.PREFIX) ? " (or env " + envName(option.key()) + ")" : "";
        return option.key() + " is not set" + env + "; expected " + allowed;
    }

    private static String problem(Configuration conf, String key, String allowed) {
        return key + " = '" + shown(key, conf.toMap().get(key)) + "' is invalid; expected " + allowed;
    }

    private static String shown(String key, String value) {
        return GlobalConfiguration.isSensitive(key) ? "******" : value;
    }

    private static String allowed(ConfigOption<?> option) {
        Object example = option.hasDefaultValue()
                ? option.defaultValue()
                : checkpointDefaults().getOptional(option).orElse(null);
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
