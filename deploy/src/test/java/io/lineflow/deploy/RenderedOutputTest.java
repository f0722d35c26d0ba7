package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** What every overlay must say for the job to stay exact, secure and findable. */
class RenderedOutputTest {
    private static final Pattern SECRET_LIKE =
            Pattern.compile("(?i).*(password|passwd|secret|token|private.?key|access.?key|credential).*");

    static Stream<String> overlays() {
        return Repo.overlayNames().stream();
    }

    private static ObjectNode flink(Rendered r) {
        return r.one("FlinkDeployment");
    }

    private static JsonNode conf(Rendered r) {
        return flink(r).at("/spec/flinkConfiguration");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void imageOverrideReachesFlinkDeploymentAndMigrationJob(String overlay) {
        String image = "registry.test:5000/team/lineflow-job:9.9.9";
        Rendered r = Rendered.overlay(overlay, image);
        assertThat(flink(r).at("/spec/image").asText()).isEqualTo(image);
        assertThat(r.named("Job", "lineflow-migrate")
                        .orElseThrow()
                        .at("/spec/template/spec/containers/0/image")
                        .asText())
                .isEqualTo(image);

        String digest = "registry.test/lineflow-job@sha256:" + "a".repeat(64);
        assertThat(flink(Rendered.overlay(overlay, digest)).at("/spec/image").asText())
                .isEqualTo(digest);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void overlayOwnImageReachesSpecImage(String overlay) {
        Rendered r = Rendered.kustomize(Repo.overlay(overlay));
        String image = flink(r).at("/spec/image").asText();
        assertThat(image)
                .as("kustomize images: must reach spec.image")
                .contains(":")
                .isNotEqualTo("lineflow-job");
        assertThat(r.named("Job", "lineflow-migrate")
                        .orElseThrow()
                        .at("/spec/template/spec/containers/0/image")
                        .asText())
                .isEqualTo(image);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void checkpointsAreExactlyOnceDurableAndRetained(String overlay) {
        Rendered r = Rendered.kustomize(Repo.overlay(overlay));
        JsonNode conf = conf(r);
        assertThat(conf.path("execution.checkpointing.interval").asText()).isNotBlank();
        assertThat(conf.path("execution.checkpointing.mode").asText()).isEqualTo("EXACTLY_ONCE");
        assertThat(conf.path("execution.checkpointing.externalized-checkpoint-retention")
                        .asText())
                .isEqualTo("RETAIN_ON_CANCELLATION");
        for (String key : List.of(
                "execution.checkpointing.dir",
                "execution.checkpointing.savepoint-dir",
                "high-availability.storageDir")) {
            assertDurable(r, key, conf.path(key).asText());
        }
        assertThat(conf.path("restart-strategy.type").asText()).isEqualTo("exponential-delay");
        assertThat(conf.path("metrics.reporter.prom.factory.class").asText())
                .isEqualTo("org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void kubernetesHaAndStatefulUpgradesAreOn(String overlay) {
        Rendered r = Rendered.kustomize(Repo.overlay(overlay));
        assertThat(conf(r).path("high-availability.type").asText()).isEqualTo("kubernetes");
        assertThat(flink(r).at("/spec/job/upgradeMode").asText()).isIn("last-state", "savepoint");
        assertThat(flink(r).at("/spec/job/jarURI").asText()).isEqualTo("local:///opt/flink/usrlib/lineflow-job.jar");
        assertThat(flink(r).at("/spec/flinkVersion").asText())
                .isEqualTo(overlay.endsWith("-flink-2.2") ? "v2_2" : "v1_20");
    }

    /**
     * The S3 plugin a deployment enables is its Flink version's: the image's {@code opt/} holds only
     * that one, and a plugin of another version does not load, so the job cannot reach its state.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void theS3PluginIsTheDeploymentsFlinkVersion(String overlay) {
        ObjectNode fd = flink(Rendered.kustomize(Repo.overlay(overlay)));
        for (JsonNode env : fd.at("/spec/podTemplate/spec/containers/0/env")) {
            if (env.path("name").asText().equals("ENABLE_BUILT_IN_PLUGINS")) {
                assertThat(pluginLine(env.path("value").asText()))
                        .as("%s's S3 plugin against spec.flinkVersion", overlay)
                        .isEqualTo(fd.at("/spec/flinkVersion").asText());
            }
        }
    }

    /** Negative control of the rule above: a 1.20 plugin names the line v1_20, not v2_2. */
    @Test
    void aPluginNamesTheFlinkLineOfItsVersion() {
        assertThat(pluginLine("flink-s3-fs-hadoop-1.20.1.jar")).isEqualTo("v1_20");
        assertThat(pluginLine("flink-s3-fs-hadoop-2.2.0.jar")).isEqualTo("v2_2");
        assertThat(pluginLine("flink-s3-fs-hadoop-1.20.1.jar")).isNotEqualTo("v2_2");
    }

    /** {@code flink-s3-fs-hadoop-2.2.0.jar} → {@code v2_2}, the operator's name of that line. */
    private static String pluginLine(String jar) {
        Matcher m = Pattern.compile("flink-[a-z0-9-]+?-(\\d+)\\.(\\d+)\\.\\d+\\.jar")
                .matcher(jar);
        assertThat(m.matches()).as("a built-in plugin jar: %s", jar).isTrue();
        return "v" + m.group(1) + "_" + m.group(2);
    }

    @Test
    void prodRunsTwoJobManagersOnRocksDbWithTheReconciler() {
        Rendered r = Rendered.kustomize(Repo.overlay("prod"));
        assertThat(flink(r).at("/spec/jobManager/replicas").asInt()).isEqualTo(2);
        assertThat(conf(r).path("state.backend.type").asText()).isEqualTo("rocksdb");
        assertThat(conf(r).path("execution.checkpointing.incremental").asText()).isEqualTo("true");
        assertThat(conf(r).path("execution.checkpointing.dir").asText()).startsWith("s3://");
        assertThat(conf(r).path("slotmanager.redundant-taskmanager-num").asText())
                .as("a spare TaskManager")
                .isEqualTo("1");
        assertThat(r.ofKind("PodMonitor"))
                .extracting(Rendered::id)
                .containsExactlyInAnyOrder(
                        "PodMonitor/lineflow-flink",
                        "PodMonitor/lineflow-flink-operator",
                        "PodMonitor/lineflow-reconciler");
        assertThat(r.named("Deployment", "lineflow-reconciler")).isPresent();
        assertThat(r.ofKind("PrometheusRule")).hasSize(1);
    }

    @Test
    void devRunsOneJobManagerWithItsOwnServices() {
        Rendered r = Rendered.kustomize(Repo.overlay("dev"));
        assertThat(flink(r).at("/spec/jobManager/replicas").asInt()).isEqualTo(1);
        assertThat(r.ofKind("StatefulSet"))
                .extracting(Rendered::id)
                .containsExactlyInAnyOrder(
                        "StatefulSet/lineflow-kafka", "StatefulSet/lineflow-postgres", "StatefulSet/lineflow-minio");
        String props = configFile(r);
        assertThat(props).contains("lineflow.kafka.bootstrap-servers=lineflow-kafka:9092");
        assertThat(props).contains("lineflow.jdbc.url=jdbc:postgresql://lineflow-postgres:5432/lineflow");
        assertThat(conf(r).path("s3.endpoint").asText()).isEqualTo("http://lineflow-minio:9000");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void noSecretValueInAnyRenderedObject(String overlay) {
        Rendered r = Rendered.kustomize(Repo.overlay(overlay));
        assertThat(r.ofKind("Secret")).as("Secrets are created outside git").isEmpty();
        List<String> leaks = new ArrayList<>();
        r.forEachPodSpec((where, pod) -> Rendered.forEachContainer(
                pod,
                c -> c.path("env").forEach(e -> {
                    if (SECRET_LIKE.matcher(e.path("name").asText()).matches() && e.has("value")) {
                        leaks.add(where + " env " + e.path("name").asText());
                    }
                })));
        for (ObjectNode cm : r.ofKind("ConfigMap")) {
            cm.path("data").fields().forEachRemaining(f -> {
                for (String line : f.getValue().asText().split("\n")) {
                    String key = line.split("[=:]", 2)[0].trim();
                    if (!line.trim().startsWith("#") && SECRET_LIKE.matcher(key).matches()) {
                        leaks.add(Rendered.id(cm) + " " + f.getKey() + ": " + key);
                    }
                }
            });
        }
        assertThat(leaks).isEmpty();
        Set<String> secretRefs = new HashSet<>();
        r.forEachPodSpec((where, pod) -> Rendered.forEachContainer(
                pod,
                c -> c.path("env").forEach(e -> {
                    JsonNode ref = e.at("/valueFrom/secretKeyRef/name");
                    if (!ref.isMissingNode()) {
                        secretRefs.add(ref.asText());
                    }
                })));
        assertThat(secretRefs).contains("lineflow-db").isSubsetOf("lineflow-db", "lineflow-s3");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void everyContainerRunsAsNonRoot(String overlay) {
        assertNonRoot(Rendered.kustomize(Repo.overlay(overlay)));
    }

    @Test
    void everyComponentsContainersRunAsNonRoot() {
        assertNonRoot(Rendered.kustomize(Repo.testOverlay("all-components")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlays")
    void referencesPointAtObjectsThatExist(String overlay) {
        Rendered r = Rendered.kustomize(Repo.overlay(overlay));
        assertReferencesResolve(r);
        String ns = flink(r).at("/metadata/namespace").asText();
        assertThat(ns).isNotBlank();
        for (ObjectNode rb : r.ofKind("RoleBinding")) {
            rb.path("subjects")
                    .forEach(s -> assertThat(s.path("namespace").asText()).isEqualTo(ns));
        }
    }

    @Test
    void namePrefixKeepsFlinkDeploymentReferencesRight() {
        Rendered r = Rendered.kustomize(Repo.testOverlay("all-components"));
        ObjectNode fd = flink(r);
        assertThat(fd.at("/metadata/name").asText()).isEqualTo("acme-lineflow");
        assertThat(fd.at("/spec/serviceAccount").asText()).isEqualTo("acme-lineflow-flink");
        assertReferencesResolve(r);
    }

    @Test
    void podMonitorSelectsFlinkPodsOnTheReporterPort() {
        Rendered r = Rendered.kustomize(Repo.overlay("prod"));
        ObjectNode pm = r.named("PodMonitor", "lineflow-flink").orElseThrow();
        ObjectNode fd = flink(r);
        JsonNode podLabels = fd.at("/spec/podTemplate/metadata/labels");
        pm.at("/spec/selector/matchLabels")
                .fields()
                .forEachRemaining(l -> assertThat(podLabels.path(l.getKey()).asText())
                        .isEqualTo(l.getValue().asText()));
        String port = pm.at("/spec/podMetricsEndpoints/0/port").asText();
        List<String> ports = new ArrayList<>();
        fd.at("/spec/podTemplate/spec/containers/0/ports").forEach(p -> {
            if (p.path("name").asText().equals(port)) {
                ports.add(p.path("containerPort").asText());
            }
        });
        assertThat(ports)
                .containsExactly(conf(r).path("metrics.reporter.prom.port").asText());
        assertThat(r.named("ConfigMap", "lineflow-grafana-dashboard")
                        .orElseThrow()
                        .at("/metadata/labels/grafana_dashboard")
                        .asText())
                .isEqualTo("1");
    }

    private static String configFile(Rendered r) {
        String volumeCm = flink(r).at("/spec/podTemplate/spec/volumes")
                .findValue("configMap")
                .path("name")
                .asText();
        return r.named("ConfigMap", volumeCm)
                .orElseThrow()
                .at("/data/lineflow.properties")
                .asText();
    }

    private static void assertDurable(Rendered r, String key, String value) {
        assertThat(value).as(key).isNotBlank();
        if (value.startsWith("s3://") || value.startsWith("gs://") || value.startsWith("abfs://")) {
            return;
        }
        assertThat(value)
                .as(key + " must be object storage or a path on a mounted volume")
                .startsWith("file:///");
        String path = value.substring("file://".length());
        List<String> mounts = new ArrayList<>();
        flink(r).at("/spec/podTemplate/spec/containers/0/volumeMounts").forEach(m -> {
            JsonNode vol = findVolume(flink(r), m.path("name").asText());
            if (vol != null && vol.has("persistentVolumeClaim")) {
                mounts.add(m.path("mountPath").asText());
            }
        });
        assertThat(mounts).as(key + " " + value + " must be under a PVC mount").anyMatch(path::startsWith);
    }

    private static JsonNode findVolume(JsonNode fd, String name) {
        for (JsonNode v : fd.at("/spec/podTemplate/spec/volumes")) {
            if (v.path("name").asText().equals(name)) {
                return v;
            }
        }
        return null;
    }

    private static void assertNonRoot(Rendered r) {
        List<String> problems = new ArrayList<>();
        r.forEachPodSpec((where, pod) -> {
            if (pod.isMissingNode()) {
                return;
            }
            JsonNode podSc = pod.path("securityContext");
            Rendered.forEachContainer(pod, c -> {
                JsonNode sc = c.path("securityContext");
                String name = where + " container " + c.path("name").asText();
                boolean nonRoot = sc.path("runAsNonRoot")
                        .asBoolean(podSc.path("runAsNonRoot").asBoolean(false));
                long uid = sc.path("runAsUser").asLong(podSc.path("runAsUser").asLong(-1));
                if (!nonRoot) {
                    problems.add(name + ": runAsNonRoot is not true");
                }
                if (uid == 0) {
                    problems.add(name + ": runAsUser 0");
                }
                if (sc.path("allowPrivilegeEscalation").asBoolean(true)) {
                    problems.add(name + ": allowPrivilegeEscalation is not false");
                }
                if (sc.path("privileged").asBoolean(false)) {
                    problems.add(name + ": privileged");
                }
            });
        });
        assertThat(problems).as(r.source).isEmpty();
    }

    private static void assertReferencesResolve(Rendered r) {
        Set<String> names = new HashSet<>();
        r.objects.forEach(o -> names.add(Rendered.id(o)));
        List<String> dangling = new ArrayList<>();
        for (ObjectNode fd : r.ofKind("FlinkDeployment")) {
            String sa = fd.at("/spec/serviceAccount").asText();
            if (!names.contains("ServiceAccount/" + sa)) {
                dangling.add("FlinkDeployment serviceAccount " + sa);
            }
        }
        r.forEachPodSpec((where, pod) -> {
            String sa = pod.path("serviceAccountName").asText("");
            if (!sa.isEmpty() && !names.contains("ServiceAccount/" + sa)) {
                dangling.add(where + " serviceAccountName " + sa);
            }
            pod.path("volumes").forEach(v -> {
                for (Map.Entry<String, String> ref : Map.of(
                                "configMap", "ConfigMap", "persistentVolumeClaim", "PersistentVolumeClaim")
                        .entrySet()) {
                    JsonNode src = v.path(ref.getKey());
                    String n = src.path("name").asText(src.path("claimName").asText(""));
                    if (!src.isMissingNode() && !names.contains(ref.getValue() + "/" + n)) {
                        dangling.add(where + " volume " + ref.getValue() + "/" + n);
                    }
                }
            });
        });
        for (ObjectNode rb : r.ofKind("RoleBinding")) {
            String role = rb.at("/roleRef/name").asText();
            if (!names.contains(rb.at("/roleRef/kind").asText() + "/" + role)) {
                dangling.add(Rendered.id(rb) + " roleRef " + role);
            }
            rb.path("subjects").forEach(s -> {
                if (!names.contains("ServiceAccount/" + s.path("name").asText())) {
                    dangling.add(Rendered.id(rb) + " subject " + s.path("name").asText());
                }
            });
        }
        assertThat(dangling).as(r.source).isEmpty();
    }
}
