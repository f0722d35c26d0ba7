package io.lineflow.job.config;

import static io.lineflow.settings.LineflowSettings.missing;
import static io.lineflow.settings.LineflowSettings.problem;

import io.lineflow.job.state.BoundedRocksDBManifest;
import io.lineflow.settings.ConfigException;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.contrib.streaming.state.RocksDBOptions;
import org.apache.flink.core.execution.CheckpointingMode;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds the job's configuration and refuses a bad one before anything starts: the job's wiring
 * around {@link LineflowSettings}, which reads and checks lineflow's own settings (the reconciler's
 * audit reads a deployment's with it too).
 *
 * <p>What is the job's alone: lineflow's defaults for Flink's checkpointing and state keys (the
 * RocksDB options factory among them), and their checks. Sources, later ones winning: those
 * defaults, the cluster configuration, the properties file named by {@code --config}, {@code
 * LINEFLOW_*} environment variables, then {@code --key value} arguments. Every problem found is
 * reported at once, each with its key, its value (masked if sensitive) and what is allowed.
 */
public final class JobConfig {
    private JobConfig() {}

    private static final Set<String> STATE_BACKENDS = Set.of("hashmap", "rocksdb");

    /** Flink's keys whose values are checked to parse with lineflow's own (the job sets their defaults). */
    private static final List<ConfigOption<?>> CHECKPOINT_OPTIONS = List.of(
            CheckpointingOptions.CHECKPOINTING_INTERVAL,
            CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
            CheckpointingOptions.CHECKPOINTING_TIMEOUT,
            CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS,
            CheckpointingOptions.TOLERABLE_FAILURE_NUMBER,
            CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS,
            CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
            CheckpointingOptions.INCREMENTAL_CHECKPOINTS);

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
        return LineflowSettings.merge(
                checkpointDefaults(), cluster, args, env, LineflowSettings.LOCAL_FILES, CHECKPOINT_OPTIONS);
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

    /** The checks that need more than types: lineflow's settings, then checkpointing. */
    public static void validateForJob(Configuration conf) {
        List<String> problems = new ArrayList<>();
        LineflowSettings.check(conf, problems);
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
        LineflowSettings.checkJdbc(conf, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
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
}
