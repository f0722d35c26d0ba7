package io.lineflow.job.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.settings.ConfigException;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

class JobConfigTest {
    private static final Map<String, String> NO_ENV = Map.of();

    private static String[] args(String... extra) {
        String[] base = {
            "--lineflow.kafka.bootstrap-servers", "127.0.0.1:9092",
            "--lineflow.jdbc.url", "jdbc:postgresql://127.0.0.1:5432/lineflow",
            "--state.checkpoints.dir", "file:///var/lineflow/checkpoints"
        };
        String[] all = new String[base.length + extra.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(extra, 0, all, base.length, extra.length);
        return all;
    }

    @Test
    void appliesLineflowCheckpointDefaults() {
        Configuration conf = JobConfig.load(args(), NO_ENV, new Configuration());
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL)).isEqualTo(Duration.ofSeconds(60));
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE))
                .isEqualTo(CheckpointingMode.EXACTLY_ONCE);
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEqualTo(Duration.ofSeconds(60));
        assertThat(conf.get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS)).isEqualTo(Duration.ofMillis(500));
        assertThat(conf.get(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER)).isEqualTo(2);
        assertThat(conf.get(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS)).isEqualTo(1);
        assertThat(conf.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
                .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        assertThat(conf.get(LineflowOptions.WINDOW_SIZE)).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void laterSourcesWin_clusterThenFileThenEnvThenArguments(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("lineflow.properties");
        Files.writeString(
                file,
                "lineflow.kafka.topic=from-file\nlineflow.window.size=1 min\nlineflow.sink.batch-size=7\n"
                        + "lineflow.kafka.properties.security.protocol=SASL_SSL\n");
        Configuration cluster = new Configuration();
        cluster.setString("execution.checkpointing.interval", "30 s");
        cluster.setString("lineflow.kafka.topic", "from-cluster");
        Map<String, String> env = Map.of(
                "LINEFLOW_WINDOW_SIZE", "2 min",
                "LINEFLOW_JDBC_PASSWORD", "s3cret",
                "LINEFLOW_KAFKA_PROPERTIES_SASL_JAAS_CONFIG", "jaas");
        Configuration conf =
                JobConfig.load(args("--config", file.toString(), "--lineflow.sink.batch-size", "9"), env, cluster);

        assertThat(conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL)).isEqualTo(Duration.ofSeconds(30));
        assertThat(conf.get(LineflowOptions.KAFKA_TOPIC)).isEqualTo("from-file");
        assertThat(conf.get(LineflowOptions.WINDOW_SIZE)).isEqualTo(Duration.ofMinutes(2));
        assertThat(conf.get(LineflowOptions.SINK_BATCH_SIZE)).isEqualTo(9);
        assertThat(conf.get(LineflowOptions.JDBC_PASSWORD)).isEqualTo("s3cret");
        assertThat(LineflowSettings.withPrefix(conf, LineflowOptions.KAFKA_PROPERTIES_PREFIX))
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.jaas.config", "jaas");
    }

    @Test
    void neverShowsThePasswordInTheDescriptionOrAnError() {
        Configuration conf = JobConfig.load(args("--lineflow.jdbc.password", "hunter2"), NO_ENV, new Configuration());
        assertThat(LineflowSettings.describe(conf)).doesNotContain("hunter2").contains("lineflow.jdbc.password=******");
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "lineflow.window.size          | five minutes | a duration such as",
                "lineflow.window.size          | 0 s          | at least 1 ms",
                "lineflow.window.allowed-lateness | -1 s      | a duration",
                "lineflow.sink.batch-size      | lots         | an integer",
                "lineflow.sink.batch-size      | 0            | 1 or more",
                "lineflow.sink.max-retries     | -1           | 0 or more",
                "lineflow.sink.mode            | SOMETIMES    | one of UPSERT, ADDITIVE",
                "lineflow.kafka.starting-offsets | NOW        | one of COMMITTED, EARLIEST, LATEST",
                "lineflow.checkpointing.enabled | maybe       | true or false",
                "lineflow.events.max-bytes     | huge         | a size such as",
                "lineflow.rocksdb.max-manifest-size | 100 b   | from 1 kb to 1 gb",
                "lineflow.events.earliest      | yesterday    | an ISO-8601 instant such as 2000-01-01T00:00:00Z",
                "lineflow.events.earliest      | 1969-12-31T23:59:59Z | from 1970-01-01T00:00:00Z",
                "lineflow.events.max-future    | 1000 d       | from 1 ms to 366 d",
                "lineflow.window.idle-emit     | 0 s          | at least 1 ms",
                "lineflow.jdbc.url             | jdbc:mysql://db/x | jdbc:postgresql://",
                "lineflow.kafka.bootstrap-servers | ''      | host:port",
                "execution.checkpointing.interval | 5 ms     | at least 10 ms",
                "execution.checkpointing.interval | often    | a duration such as",
                "execution.checkpointing.mode  | MOSTLY_ONCE  | one of EXACTLY_ONCE, AT_LEAST_ONCE",
                "execution.checkpointing.max-concurrent-checkpoints | 0 | 1 or more",
                "state.backend.type            | jobmanager   | hashmap or rocksdb",
                "lineflow.windw.size           | 5 min        | not a lineflow option",
                "lineflow.dedup.horizon        | 1 h          | is retired: an eventId is counted once per device and window",
            })
    void badValueFailsAtStartWithKeyValueAndWhatIsAllowed(String key, String value, String allowed) {
        assertThatThrownBy(() -> JobConfig.load(args("--" + key, value), NO_ENV, new Configuration()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(allowed)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).hasSize(1));
    }

    @Test
    void missingRequiredKeysAreAllReportedTogether() {
        assertThatThrownBy(() -> JobConfig.load(new String[0], NO_ENV, new Configuration()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems())
                        .anySatisfy(
                                p -> assertThat(p)
                                        .startsWith(
                                                "lineflow.kafka.bootstrap-servers is not set (or env LINEFLOW_KAFKA_BOOTSTRAP_SERVERS)"))
                        .anySatisfy(p -> assertThat(p).startsWith("lineflow.jdbc.url is not set"))
                        .anySatisfy(p -> assertThat(p).startsWith("execution.checkpointing.dir is not set")));
    }

    @Test
    void checkpointDirectoryIsNotRequiredWhenCheckpointingIsOff() {
        Configuration conf = JobConfig.load(
                new String[] {
                    "--lineflow.kafka.bootstrap-servers", "k:9092",
                    "--lineflow.jdbc.url", "jdbc:postgresql://db/x",
                    "--lineflow.checkpointing.enabled", "false"
                },
                NO_ENV,
                new Configuration());
        assertThat(conf.get(LineflowOptions.CHECKPOINTING_ENABLED)).isFalse();
    }

    @Test
    void anUnreadableConfigFileIsReported(@TempDir Path dir) {
        assertThatThrownBy(() -> JobConfig.load(
                        args("--config", dir.resolve("nope.properties").toString()), NO_ENV, new Configuration()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nope.properties cannot be read");
    }

    @Test
    void malformedArgumentsAreReported() {
        assertThatThrownBy(() -> JobConfig.load(new String[] {"window", "5"}, NO_ENV, new Configuration()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--key value");
    }
}
