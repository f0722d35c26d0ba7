package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.observe.SpecReader;
import io.lineflow.rules.Rules;
import io.lineflow.settings.ConfigException;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** A deployment's job settings read from where the job reads them, with the job's own reading. */
class JobSettingsTest {
    private static final String NS = "lines";
    private static final String BASE = "lineflow.kafka.bootstrap-servers=kafka:9092\n"
            + "lineflow.jdbc.url=jdbc:postgresql://postgres:5432/lineflow\n";

    private final Map<String, Map<String, String>> configMaps = new HashMap<>();

    private Configuration read(FlinkDeployment fd) {
        return JobSettings.read(fd, (ns, name) -> ns.equals(NS) ? configMaps.get(name) : null);
    }

    @Test
    void theManifestsShapeTheFileFromTheConfigMapMountedAtTheConfigPath() {
        configMaps.put("lineflow-config-h4sh", Map.of("lineflow.properties", BASE + "lineflow.window.size=10 min\n"));
        Configuration conf = read(TestUtils.lineflowDeployment(NS, "lineflow", "lineflow-config-h4sh"));
        assertThat(LineflowSettings.rules(conf).windowMillis())
                .isEqualTo(Duration.ofMinutes(10).toMillis());
        assertThat(LineflowSettings.rules(conf).latenessMillis())
                .isEqualTo(Rules.defaults().latenessMillis());
    }

    @Test
    void laterSourcesWinAsInTheJob_clusterFileEnvironmentArguments() {
        configMaps.put("cfg", Map.of("lineflow.properties", BASE + "lineflow.kafka.topic=from-file\n"));
        configMaps.put("env", Map.of("lateness", "4 min", "LINEFLOW_KAFKA_GROUP_ID", "from-env-from"));
        FlinkDeployment fd = TestUtils.lineflowDeployment(NS, "lineflow", "cfg");
        fd.getSpec().getFlinkConfiguration().put("lineflow.kafka.topic", "from-cluster");
        fd.getSpec().getFlinkConfiguration().put("lineflow.window.size", "10 min");
        // The JobManager's template adds variables to the common one's main container.
        fd.getSpec()
                .getJobManager()
                .setPodTemplate(new PodTemplateSpecBuilder()
                        .withNewSpec()
                        .addToContainers(new ContainerBuilder()
                                .withName(SpecReader.MAIN_CONTAINER)
                                .addNewEnvFrom()
                                .withNewConfigMapRef()
                                .withName("env")
                                .endConfigMapRef()
                                .endEnvFrom()
                                .addToEnv(new EnvVarBuilder()
                                        .withName("LINEFLOW_WINDOW_ALLOWED_LATENESS")
                                        .withNewValueFrom()
                                        .withNewConfigMapKeyRef("lateness", "env", false)
                                        .endValueFrom()
                                        .build())
                                .addToEnv(new EnvVarBuilder()
                                        .withName("LINEFLOW_KAFKA_TOPIC")
                                        .withValue("from-env")
                                        .build())
                                .addToEnv(new EnvVarBuilder()
                                        .withName("LINEFLOW_JDBC_PASSWORD")
                                        .withNewValueFrom()
                                        .withNewSecretKeyRef("password", "lineflow-db", false)
                                        .endValueFrom()
                                        .build())
                                .build())
                        .endSpec()
                        .build());
        fd.getSpec().getJob().setArgs(new String[] {"--config", TestUtils.SETTINGS_FILE, "--lineflow.kafka.topic", "arg"
        });

        Configuration conf = read(fd);

        assertThat(conf.get(LineflowOptions.KAFKA_TOPIC)).isEqualTo("arg");
        assertThat(conf.get(LineflowOptions.KAFKA_GROUP_ID)).isEqualTo("from-env-from");
        assertThat(conf.get(LineflowOptions.WINDOW_SIZE)).isEqualTo(Duration.ofMinutes(10));
        assertThat(conf.get(LineflowOptions.ALLOWED_LATENESS)).isEqualTo(Duration.ofMinutes(4));
        assertThat(conf.get(LineflowOptions.JDBC_PASSWORD))
                .as("Secrets are not read")
                .isNull();
    }

    @Test
    void aFileMountedByItemsOrSubPathIsFoundByItsKey() {
        configMaps.put("cfg", Map.of("job.props", BASE + "lineflow.kafka.topic=by-item\n"));
        FlinkDeployment items = TestUtils.lineflowDeployment(NS, "lineflow", "cfg");
        items.getSpec()
                .getPodTemplate()
                .getSpec()
                .getVolumes()
                .set(
                        0,
                        new VolumeBuilder()
                                .withName("lineflow-config")
                                .withNewConfigMap()
                                .withName("cfg")
                                .addNewItem()
                                .withKey("job.props")
                                .withPath("lineflow.properties")
                                .endItem()
                                .endConfigMap()
                                .build());
        assertThat(read(items).get(LineflowOptions.KAFKA_TOPIC)).isEqualTo("by-item");

        FlinkDeployment subPath = TestUtils.lineflowDeployment(NS, "lineflow", "cfg");
        subPath.getSpec()
                .getPodTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .setVolumeMounts(java.util.List.of(new VolumeMountBuilder()
                        .withName("lineflow-config")
                        .withMountPath(TestUtils.SETTINGS_FILE)
                        .withSubPath("job.props")
                        .build()));
        assertThat(read(subPath).get(LineflowOptions.KAFKA_TOPIC)).isEqualTo("by-item");
    }

    @Test
    void whatCannotBeReadIsAProblemThatSaysWhy() {
        FlinkDeployment gone = TestUtils.lineflowDeployment(NS, "lineflow", "gone");
        assertThatThrownBy(() -> read(gone))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--config /etc/lineflow/lineflow.properties cannot be read")
                .hasMessageContaining("ConfigMap gone does not exist in namespace lines");

        configMaps.put("cfg", Map.of("other.properties", BASE));
        assertThatThrownBy(() -> read(TestUtils.lineflowDeployment(NS, "lineflow", "cfg")))
                .hasMessageContaining("ConfigMap cfg (volume lineflow-config at /etc/lineflow) has no key for"
                        + " lineflow.properties");

        FlinkDeployment image = TestUtils.flinkDeployment(NS, "lineflow");
        image.getSpec().getJob().setArgs(new String[] {"--config", "/opt/flink/conf/lineflow.properties"});
        assertThatThrownBy(() -> read(image))
                .hasMessageContaining("no volume mounted in the JobManager's" + " flink-main-container holds it");

        FlinkDeployment emptyDir = TestUtils.flinkDeployment(NS, "lineflow");
        emptyDir.getSpec().setPodTemplate(TestUtils.podTemplate("emptyDir", "/etc/lineflow"));
        emptyDir.getSpec().getJob().setArgs(new String[] {"--config", TestUtils.SETTINGS_FILE});
        assertThatThrownBy(() -> read(emptyDir))
                .hasMessageContaining("it is on volume state (emptyDir), not a ConfigMap");
    }

    @Test
    void withoutAFileTheSettingsComeFromTheSpecAlone() {
        FlinkDeployment fd = TestUtils.flinkDeployment(NS, "lineflow");
        fd.getSpec().getFlinkConfiguration().put("lineflow.kafka.bootstrap-servers", "kafka:9092");
        fd.getSpec().getJob().setArgs(new String[] {"--lineflow.jdbc.url", "jdbc:postgresql://db/x"});
        assertThat(LineflowSettings.rules(read(fd))).isEqualTo(Rules.defaults());
        fd.getSpec().getJob().setArgs(new String[] {
            "--lineflow.jdbc.url", "jdbc:postgresql://db/x", "--lineflow.windw.size", "1 min"
        });
        assertThatThrownBy(() -> read(fd)).hasMessageContaining("lineflow.windw.size is not a lineflow option");
    }
}
