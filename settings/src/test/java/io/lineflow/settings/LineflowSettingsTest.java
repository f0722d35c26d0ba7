package io.lineflow.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.rules.Rules;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * The reading the reconciler's audit shares with the job ({@code JobConfigTest} covers the job's
 * use): the same sources in the same order whatever serves the properties file, lineflow's keys
 * checked and Flink's left to the job, every problem with its key, value and what is allowed.
 */
class LineflowSettingsTest {
    private static final String FILE = "/etc/lineflow/lineflow.properties";
    private static final String[] ARGS = {"--config", FILE};

    /** Properties files served from memory, as the reconciler serves them from a ConfigMap. */
    private static LineflowSettings.PropertiesFiles files(Map<String, String> byPath) {
        return path -> {
            String text = byPath.get(path);
            if (text == null) {
                throw new FileNotFoundException("no ConfigMap holds " + path);
            }
            Properties p = new Properties();
            p.load(new StringReader(text));
            return p;
        };
    }

    private static final String BASE = "lineflow.kafka.bootstrap-servers=kafka:9092\n"
            + "lineflow.jdbc.url=jdbc:postgresql://postgres:5432/lineflow\n";

    @Test
    void readsClusterThenFileThenEnvironmentThenArguments() {
        Configuration cluster = new Configuration();
        cluster.setString("lineflow.window.size", "10 min");
        cluster.setString("lineflow.window.allowed-lateness", "30 s");
        Configuration conf = LineflowSettings.read(
                cluster,
                new String[] {"--config", FILE, "--lineflow.kafka.group-id", "line-b"},
                Map.of("LINEFLOW_KAFKA_TOPIC", "line-b-events", "LINEFLOW_WATERMARK_OUT_OF_ORDERNESS", "20 s"),
                files(Map.of(FILE, BASE + "lineflow.window.allowed-lateness=3 min\nlineflow.kafka.topic=file\n")));

        Rules rules = LineflowSettings.rules(conf);
        assertThat(rules.windowMillis()).isEqualTo(Duration.ofMinutes(10).toMillis());
        assertThat(rules.latenessMillis()).isEqualTo(Duration.ofMinutes(3).toMillis());
        assertThat(rules.outOfOrdernessMillis())
                .isEqualTo(Duration.ofSeconds(20).toMillis());
        assertThat(rules.maxFutureMillis()).isEqualTo(Rules.defaults().maxFutureMillis());
        assertThat(conf.get(LineflowOptions.KAFKA_TOPIC)).isEqualTo("line-b-events");
        assertThat(conf.get(LineflowOptions.KAFKA_GROUP_ID)).isEqualTo("line-b");
    }

    @Test
    void unsetSettingsAreTheRulesDefaults() {
        Configuration conf = LineflowSettings.read(new Configuration(), ARGS, Map.of(), files(Map.of(FILE, BASE)));
        assertThat(LineflowSettings.rules(conf)).isEqualTo(Rules.defaults());
    }

    @Test
    void flinksOwnKeysAreNotCheckedHere() {
        Configuration cluster = new Configuration();
        cluster.setString("execution.checkpointing.interval", "often");
        assertThat(LineflowSettings.read(cluster, ARGS, Map.of(), files(Map.of(FILE, BASE))))
                .isNotNull();
    }

    @Test
    void aBadValueNamesItsKeyItsValueAndWhatIsAllowed() {
        assertThatThrownBy(() -> LineflowSettings.read(
                        new Configuration(),
                        ARGS,
                        Map.of(),
                        files(Map.of(FILE, BASE + "lineflow.window.allowed-lateness=a while\n"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("lineflow.window.allowed-lateness = 'a while' is invalid; expected a duration");
        assertThatThrownBy(() -> LineflowSettings.read(
                        new Configuration(), ARGS, Map.of("LINEFLOW_WINDOW_SIZE", "0 s"), files(Map.of(FILE, BASE))))
                .hasMessageContaining("lineflow.window.size = '0 s' is invalid; expected a duration of at least 1 ms");
    }

    @Test
    void aFileThatCannotBeReadSaysWhy() {
        assertThatThrownBy(() -> LineflowSettings.read(new Configuration(), ARGS, Map.of(), files(Map.of())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--config " + FILE + " cannot be read (FileNotFoundException: no ConfigMap holds "
                        + FILE + ")");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        LineflowSettings.PropertiesFiles none = path -> {
            throw new IOException("unused");
        };
        assertThatThrownBy(() -> LineflowSettings.read(
                        new Configuration(), new String[0], Map.of("LINEFLOW_SINK_BATCH_SIZE", "0"), none))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .hasSize(3)
                                .anySatisfy(
                                        p -> assertThat(p).startsWith("lineflow.kafka.bootstrap-servers is not set"))
                                .anySatisfy(p -> assertThat(p).startsWith("lineflow.jdbc.url is not set"))
                                .anySatisfy(p -> assertThat(p).startsWith("lineflow.sink.batch-size = '0'")));
    }
}
