package io.lineflow.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.Commands;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every kustomize overlay, rendered with the pinned kustomize, passes {@code kubectl apply
 * --dry-run=server} on a real API server with the operator CRDs: schema, admission and defaulting
 * accept every object, and the server keeps every field sent (pruning would drop a misspelt key).
 */
@ExtendWith(KubeApiServerExtension.class)
class OverlayDryRunTest {

    static final Path TEST_OVERLAYS = Repo.ROOT.resolve("k8s-it/src/test/resources/overlays");

    static KubeEnv env;

    @BeforeAll
    static void namespaces(KubeEnv kube) {
        env = kube;
    }

    /** The shipped overlays (every folder of kustomize/overlays) and this module's test overlays. */
    static Stream<Path> overlays() throws IOException {
        List<Path> all = new ArrayList<>();
        for (Path root : List.of(Repo.ROOT.resolve("kustomize/overlays"), TEST_OVERLAYS)) {
            try (Stream<Path> dirs = Files.list(root)) {
                dirs.filter(d -> Files.exists(d.resolve("kustomization.yaml")))
                        .sorted()
                        .forEach(all::add);
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void serverAcceptsEveryObjectOfTheOverlayAndKeepsEveryField(Path overlay) {
        String rendered = Repo.kustomize(overlay);
        List<ObjectNode> sent = Manifests.parse(rendered);
        assertThat(sent).as("objects rendered from %s", overlay).isNotEmpty();
        sent.stream()
                .map(o -> o.path("metadata").path("namespace").asText())
                .filter(ns -> !ns.isEmpty())
                .distinct()
                .forEach(env::createNamespace);
        // Objects without a namespace go to the one the overlay would be deployed to.
        String ns = sent.stream()
                .map(o -> o.path("metadata").path("namespace").asText())
                .filter(n -> !n.isEmpty())
                .findFirst()
                .orElseGet(() -> env.newNamespace("lf-dry"));
        env.createNamespace(ns);

        Commands.Result r = env.kubectl(rendered, "apply", "--dry-run=server", "-n", ns, "-o", "json", "-f", "-");

        assertThat(r.ok())
                .as("kubectl apply --dry-run=server of %s:\n%s", overlay, r.err())
                .isTrue();
        Map<String, ObjectNode> stored = new LinkedHashMap<>();
        Manifests.parseKubectlJson(r.out()).forEach(o -> stored.put(Manifests.id(o), o));
        assertThat(stored.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        sent.stream().map(Manifests::id).toList());
        for (ObjectNode o : sent) {
            assertThat(Manifests.missingPaths(o, stored.get(Manifests.id(o))))
                    .as("fields of %s that the server dropped", Manifests.id(o))
                    .isEmpty();
        }
    }

    @Test
    void everyShippedOverlayIsCovered() throws IOException {
        assertThat(overlays().map(p -> p.getFileName().toString())).contains("dev", "prod");
    }

    @Test
    void aWronglyTypedFlinkDeploymentIsRejectedByTheCrdSchema() {
        String ns = env.newNamespace("lf-bad");
        String yaml = broken("replicas: 1", "replicas: two");

        // kubectl validates against the schema the server publishes for the CRD ...
        Commands.Result validated = env.kubectl(yaml, "apply", "--dry-run=server", "-n", ns, "-f", "-");
        assertThat(validated.ok()).isFalse();
        assertThat(validated.err()).contains("spec.jobManager.replicas");
        // ... and without kubectl's validation the server itself refuses it (422).
        Commands.Result server =
                env.kubectl(yaml, "apply", "--dry-run=server", "--validate=false", "-n", ns, "-f", "-");
        assertThat(server.ok()).isFalse();
        assertThat(server.err()).contains("spec.jobManager.replicas").contains("Invalid value");
    }

    @Test
    void aMisspeltFlinkDeploymentKeyIsRejectedOrPrunedAndCaught() {
        String ns = env.newNamespace("lf-bad");
        String yaml = broken("upgradeMode: last-state", "upgradMode: last-state");

        Commands.Result validated = env.kubectl(yaml, "apply", "--dry-run=server", "-n", ns, "-f", "-");
        assertThat(validated.ok()).isFalse();
        assertThat(validated.err()).contains("unknown field \"upgradMode\"");
        // The server alone accepts it (a CRD schema prunes unknown fields silently): the field is gone.
        Commands.Result server =
                env.kubectl(yaml, "apply", "--dry-run=server", "--validate=false", "-n", ns, "-o", "json", "-f", "-");
        assertThat(server.ok()).as(server.err()).isTrue();
        assertThat(Manifests.missingPaths(
                        Manifests.parse(yaml).get(0),
                        Manifests.parseKubectlJson(server.out()).get(0)))
                .containsExactly("spec.job.upgradMode");
    }

    @Test
    void theServerTakesAFlinkDeploymentOnFlink22() {
        // The installed operator's CRD knows Flink 2.2 (the 1.10 API jar's stopped at v1_20).
        String ns = env.newNamespace("lf-22");
        Commands.Result r =
                env.kubectl(withFlinkVersion("v2_2"), "apply", "--dry-run=server", "-n", ns, "-o", "json", "-f", "-");

        assertThat(r.ok()).as(r.err()).isTrue();
        assertThat(Manifests.parseKubectlJson(r.out()))
                .singleElement()
                .extracting(o -> o.at("/spec/flinkVersion").asText())
                .isEqualTo("v2_2");
    }

    @Test
    void aFlinkVersionTheInstalledOperatorDoesNotKnowIsRefusedByTheServer() {
        String ns = env.newNamespace("lf-bad");
        Commands.Result server = env.kubectl(
                withFlinkVersion("v2_3"), "apply", "--dry-run=server", "--validate=false", "-n", ns, "-f", "-");

        assertThat(server.ok()).isFalse();
        assertThat(server.err())
                .contains("spec.flinkVersion")
                .contains("Unsupported value: \"v2_3\"")
                .contains("\"v2_2\"");
    }

    @Test
    void anInvalidCoreObjectIsRejectedByTheServer() {
        String ns = env.newNamespace("lf-bad");
        String yaml = """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: lineflow-reconciler}
                spec:
                  replicas: -1
                  selector: {matchLabels: {app: a}}
                  template:
                    metadata: {labels: {app: b}}
                    spec: {containers: [{name: c, image: i}]}
                """;
        Commands.Result r = env.kubectl(yaml, "apply", "--dry-run=server", "-n", ns, "-f", "-");

        assertThat(r.ok()).isFalse();
        assertThat(r.err()).contains("spec.replicas").contains("spec.template.metadata.labels");
    }

    /** The dev overlay's FlinkDeployment (its namespace line dropped) with one text replaced. */
    private static String broken(String what, String with) {
        String fd = devFlinkDeployment();
        assertThat(fd).contains(what);
        return fd.replaceFirst(java.util.regex.Pattern.quote(what), with);
    }

    /** The dev overlay's FlinkDeployment (its namespace line dropped) on Flink {@code version}. */
    private static String withFlinkVersion(String version) {
        String fd = devFlinkDeployment();
        assertThat(fd).containsPattern("(?m)^  flinkVersion: ");
        return fd.replaceFirst("(?m)^  flinkVersion: .*$", "  flinkVersion: " + version);
    }

    private static String devFlinkDeployment() {
        return Stream.of(Repo.kustomize(Repo.ROOT.resolve("kustomize/overlays/dev"))
                        .split("(?m)^---\\n"))
                .filter(doc -> doc.contains("\nkind: FlinkDeployment\n"))
                .findFirst()
                .orElseThrow()
                .replaceAll("(?m)^  namespace: .*\\n", "");
    }
}
