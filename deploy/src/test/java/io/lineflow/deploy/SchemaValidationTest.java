package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Every overlay renders with the pinned kustomize and every object matches its strict schema. */
class SchemaValidationTest {
    private static KubeSchemas schemas;

    @BeforeAll
    static void loadSchemas() {
        schemas = KubeSchemas.load();
    }

    static Stream<String> overlays() {
        return Repo.overlayNames().stream();
    }

    @Test
    void shipsTheDevAndProdOverlays() {
        assertThat(Repo.overlayNames()).contains("dev", "prod");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void everyObjectOfAnOverlayMatchesItsSchema(String overlay) {
        Rendered rendered = Rendered.kustomize(Repo.overlay(overlay));
        assertValid(rendered);
        assertThat(rendered.ofKind("FlinkDeployment")).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void theFlinkDeploymentOfAnOverlayValidatesOnFlink22(String overlay) {
        // The installed operator's CRD knows Flink 2.2 (the 1.10 API jar's stopped at v1_20).
        ObjectNode fd = withFlinkVersion(overlay, "v2_2");
        assertThat(schemas.validate(fd))
                .as("%s with flinkVersion v2_2", overlay)
                .isEmpty();
    }

    @Test
    void aFlinkVersionTheInstalledOperatorDoesNotKnowIsRejected() {
        ObjectNode fd = withFlinkVersion("dev", "v2_3");
        assertThat(schemas.validate(fd))
                .singleElement(STRING)
                .startsWith(Rendered.id(fd) + ": ")
                .contains("/spec/flinkVersion: does not have a value in the enumeration")
                .contains("\"v2_2\"");
    }

    @Test
    void aMissingCrdIsNamedWithHowToGetIt(@TempDir Path dir) {
        assertThatThrownBy(() -> KubeSchemas.flinkDeploymentCrd(dir, "9.9.9"))
                .hasMessageContaining(dir.resolve("9.9.9/flinkdeployments.flink.apache.org-v1.yml") + " is missing")
                .hasMessageContaining("scripts/operator-crds.sh")
                .hasMessageContaining("flink-kubernetes-operator-9.9.9-src.tar.gz");
    }

    @Test
    void everyComponentRendersAndValidates() {
        Rendered rendered = Rendered.kustomize(Repo.testOverlay("all-components"));
        assertValid(rendered);
        assertThat(rendered.objects)
                .extracting(Rendered::id)
                .contains(
                        "PersistentVolumeClaim/acme-lineflow-flink-state",
                        "PodMonitor/acme-lineflow-flink",
                        "StatefulSet/acme-lineflow-kafka");
    }

    @Test
    void brokenOverlayFailsWithEveryMistakeNamed() {
        Rendered rendered = Rendered.kustomize(Repo.testOverlay("broken"));
        List<String> problems = new ArrayList<>();
        rendered.objects.forEach(o -> problems.addAll(schemas.validate(o)));
        String report = String.join("\n", problems);
        System.out.println("Rejected, as intended, by schema validation:\n" + report);

        assertThat(problems).as(report).isNotEmpty();
        assertThat(report)
                .contains("FlinkDeployment/lineflow: ")
                .containsPattern("FlinkDeployment/lineflow: .*upgradMode")
                .containsPattern("FlinkDeployment/lineflow: .*jobManager.replicas.*integer")
                .containsPattern("FlinkDeployment/lineflow: .*runAsNonroot")
                .containsPattern("NetworkPolicy/lineflow-flink: .*podSelectr")
                .containsPattern("Job/lineflow-migrate: .*limts")
                .containsPattern("Job/lineflow-migrate: .*backoffLimit.*integer")
                .contains("ServiceAccount/lineflow-migrate: no schema for v2/ServiceAccount");
    }

    @Test
    void objectsWithoutAnOfflineSchemaAreOnlyTheKnownOnes() {
        Rendered rendered = Rendered.kustomize(Repo.testOverlay("all-components"));
        assertThat(rendered.objects)
                .filteredOn(o -> !schemas.hasSchema(o))
                .extracting(KubeSchemas::apiVersionKindOf)
                .allMatch(KubeSchemas.WITHOUT_SCHEMA::contains);
    }

    @Test
    void theDrillsIncidentDeploymentMatchesItsSchemas() {
        // kustomize/incidents/beam-kafkaio: not lineflow, the Beam job the e2e drill runs beside it
        // on Flink 1.16 (its own keys), with a claim on a node folder and the remediation Role.
        Rendered rendered = Rendered.kustomize(Repo.ROOT.resolve("kustomize/incidents/beam-kafkaio"));
        assertValid(rendered);
        assertThat(rendered.objects)
                .extracting(Rendered::id)
                .contains(
                        "FlinkDeployment/incident-beam",
                        "PersistentVolumeClaim/incident-beam-state",
                        "Role/lineflow-reconciler-remediation");
    }

    /** The overlay's FlinkDeployment as rendered, with {@code spec.flinkVersion} set to {@code version}. */
    private static ObjectNode withFlinkVersion(String overlay, String version) {
        ObjectNode fd = Rendered.kustomize(Repo.overlay(overlay)).one("FlinkDeployment");
        ((ObjectNode) fd.get("spec")).put("flinkVersion", version);
        return fd;
    }

    private static void assertValid(Rendered rendered) {
        List<String> problems = new ArrayList<>();
        for (ObjectNode o : rendered.objects) {
            problems.addAll(schemas.validate(o));
        }
        assertThat(problems).as(rendered.source + " has schema violations").isEmpty();
    }
}
