package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The drill's kustomizations: the e2e overlay as their base, the patches as JSON patch objects. */
class OverlaysTest {
    @TempDir
    Path work;

    @Test
    void patchesAreWrittenAsObjectsWithValuesQuotedAndKeysEscapedByTheWriter() throws Exception {
        Path base = Path.of("../kustomize/overlays/e2e");
        List<Overlays.Patch> patches = List.of(
                Overlays.Patch.remove("spec", "flinkConfiguration", "odd/key~1"),
                Overlays.Patch.replace(List.of("--config", "a \"b\": c"), "spec", "job", "args"),
                Overlays.Patch.replace(3, "spec", "job", "parallelism"));
        Path dir = new Overlays(work, base).write("control-x", patches);

        ObjectMapper yamlComments =
                JsonMapper.builder().enable(JsonReadFeature.ALLOW_YAML_COMMENTS).build();
        JsonNode k = yamlComments.readTree(dir.resolve("kustomization.yaml").toFile());
        assertThat(dir).isEqualTo(work.resolve("overlays/control-x").toAbsolutePath());
        assertThat(dir.resolve(k.get("resources").get(0).asText()).normalize())
                .isEqualTo(base.toAbsolutePath().normalize());
        JsonNode written = k.get("patches");
        assertThat(written).hasSize(1);
        // compared as trees: Map.of gives the writer its keys in no fixed order
        assertThat(written.get(0).get("target"))
                .isEqualTo(new ObjectMapper().readTree("{\"kind\":\"FlinkDeployment\",\"name\":\"lineflow\"}"));
        assertThat(new ObjectMapper().readTree(written.get(0).get("patch").asText()))
                .isEqualTo(new ObjectMapper().readTree("""
                                [{"op": "remove", "path": "/spec/flinkConfiguration/odd~1key~01"},
                                 {"op": "replace", "path": "/spec/job/args", "value": ["--config", "a \\"b\\": c"]},
                                 {"op": "replace", "path": "/spec/job/parallelism", "value": 3}]
                                """));
    }

    /** The major upgrade's overlay: the shipped flink-2.2 component on top of the base overlay. */
    @Test
    void aShippedComponentIsNamedByItsFolderBesideTheBaseOverlay() throws Exception {
        Path base = Path.of("../kustomize/overlays/e2e");
        Path dir = new Overlays(work, base)
                .write(
                        "major-upgrade",
                        List.of("flink-2.2"),
                        List.of(Overlays.Patch.replace(2, "spec", "job", "parallelism")));

        JsonNode k = JsonMapper.builder()
                .enable(JsonReadFeature.ALLOW_YAML_COMMENTS)
                .build()
                .readTree(dir.resolve("kustomization.yaml").toFile());
        assertThat(k.get("components")).hasSize(1);
        assertThat(dir.resolve(k.get("components").get(0).asText()).normalize())
                .isEqualTo(Path.of("../kustomize/components/flink-2.2")
                        .toAbsolutePath()
                        .normalize());
        // Without components the kustomization has no such key, as before.
        JsonNode plain = JsonMapper.builder()
                .enable(JsonReadFeature.ALLOW_YAML_COMMENTS)
                .build()
                .readTree(new Overlays(work, base)
                        .write("plain", List.of())
                        .resolve("kustomization.yaml")
                        .toFile());
        assertThat(plain.has("components")).isFalse();
    }

    @Test
    void aComponentThatIsNotShippedIsRefusedWithWhereItWasLookedFor() {
        Overlays overlays = new Overlays(work, Path.of("../kustomize/overlays/e2e"));
        assertThatThrownBy(() -> overlays.write("x", List.of("flink-9.9"), List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no kustomize component 'flink-9.9'")
                .hasMessageContaining("kustomize/components/flink-9.9");
    }

    @Test
    void eachControlsPitfallIsItsPatchesOnTheOverlay() {
        List<String> base = List.of("--config", "/etc/lineflow/lineflow.properties");
        assertThat(ControlDeployment.patches(KubernetesScenario.Control.NO_CHECKPOINTS))
                .containsExactly(
                        Overlays.Patch.remove("spec", "flinkConfiguration", "execution.checkpointing.interval"),
                        Overlays.Patch.replace(
                                concat(base, "--lineflow.checkpointing.enabled", "false"), "spec", "job", "args"));
        assertThat(ControlDeployment.patches(KubernetesScenario.Control.ADDITIVE_SINK))
                .containsExactly(Overlays.Patch.replace(
                        concat(base, "--lineflow.sink.mode", "ADDITIVE"), "spec", "job", "args"));
    }

    /** {@code base}, then {@code more}, then reading from the latest offset, as every control does. */
    private static List<String> concat(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        all.addAll(List.of("--lineflow.kafka.starting-offsets", "LATEST"));
        return all;
    }
}
