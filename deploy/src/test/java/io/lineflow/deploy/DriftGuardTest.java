package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The drift guard: what {@code make e2e} drills is what ships. The e2e overlay builds on prod and
 * may change only the environment: the fields of {@link #ENVIRONMENT}, each with the reason it
 * differs. Any other difference (a setting only production has, or only the drill) fails here,
 * so a production setting added later is drilled without anyone remembering to add it.
 */
class DriftGuardTest {
    /** A field e2e may set differently from prod: {@code Kind/name} and a path, {@code *} one segment. */
    record Environment(String object, String path, String why) {
        boolean matches(String objectId, String fieldPath) {
            return glob(object, objectId, "/") && glob(this.path, fieldPath, "/");
        }
    }

    private static final String FLINK = "FlinkDeployment/lineflow";
    private static final String CONF = "/spec/flinkConfiguration/";
    private static final String RECONCILER = "/spec/template/spec/containers/reconciler/";

    /** The short list: everything else must render the same in prod and e2e. */
    static final List<Environment> ENVIRONMENT = List.of(
            new Environment("*/*", "/metadata/namespace", "the namespace"),
            new Environment("RoleBinding/*", "/subjects/*/namespace", "the namespace"),
            new Environment(FLINK, "/spec/image", "images are built here, not pulled from the registry"),
            new Environment(FLINK, "/spec/imagePullPolicy", "images are imported into the node"),
            new Environment("Job/lineflow-migrate", "/spec/template/spec/containers/migrate/image", "images"),
            new Environment("Job/lineflow-migrate", "/spec/template/spec/containers/migrate/imagePullPolicy", "images"),
            new Environment("Deployment/lineflow-reconciler", RECONCILER + "image", "images"),
            new Environment("Deployment/lineflow-reconciler", RECONCILER + "imagePullPolicy", "images"),
            new Environment(FLINK, "/spec/jobManager/resource/*", "a 2-core node"),
            new Environment(FLINK, "/spec/taskManager/resource/*", "a 2-core node"),
            new Environment(FLINK, CONF + "kubernetes.jobmanager.cpu.limit-factor", "a 2-core node"),
            new Environment(FLINK, CONF + "kubernetes.taskmanager.cpu.limit-factor", "a 2-core node"),
            new Environment(FLINK, "/spec/job/parallelism", "a 2-core node"),
            new Environment(
                    FLINK, CONF + "execution.checkpointing.interval", "several checkpoints within a drill scenario"),
            new Environment(FLINK, CONF + "execution.checkpointing.dir", "the bucket"),
            new Environment(FLINK, CONF + "execution.checkpointing.savepoint-dir", "the bucket"),
            new Environment(FLINK, CONF + "high-availability.storageDir", "the bucket"),
            new Environment(FLINK, CONF + "s3.endpoint", "the S3 server's address"),
            new Environment(FLINK, CONF + "s3.path.style.access", "an S3 server without bucket host names"),
            new Environment(
                    "ConfigMap/lineflow-config", "/data/lineflow.properties/lineflow.kafka.bootstrap-servers", "Kafka"),
            new Environment("ConfigMap/lineflow-config", "/data/lineflow.properties/lineflow.jdbc.url", "PostgreSQL"),
            new Environment(
                    "ConfigMap/lineflow-config",
                    "/data/lineflow.properties/lineflow.kafka.properties.security.protocol",
                    "the host's Kafka has no TLS"),
            new Environment(
                    "ConfigMap/lineflow-config",
                    "/data/lineflow.properties/lineflow.jdbc.properties.sslmode",
                    "the host's PostgreSQL has no TLS"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_KAFKA_BOOTSTRAP_SERVERS/value",
                    "Kafka"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_KAFKA_SECURITY_PROTOCOL/value",
                    "the host's Kafka has no TLS"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_AUDIT_JDBC_URL/value",
                    "PostgreSQL (the host's, without TLS)"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_AUDIT_PERIOD/*",
                    "the drill checks the audit after every scenario"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_AUDIT_SPAN/*",
                    "the drill's input has event times from a fixed day, not the clock"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_INTERVAL/value",
                    "a pass per e2e checkpoint interval"),
            new Environment(
                    "Deployment/lineflow-reconciler",
                    RECONCILER + "env/LINEFLOW_RECONCILER_CHECKPOINT_FAILURES_WINDOW/*",
                    "the drill's scenarios follow each other within minutes"));

    /** kustomize's generated-name suffix: ten characters of its hash alphabet (no vowels). */
    private static final Pattern GENERATED = Pattern.compile("^(.+)-[2456789bcdfghkmt]{10}$");

    @Test
    void e2eIsProdWithOnlyTheEnvironmentSwapped() {
        Map<String, String> drift =
                drift(Rendered.kustomize(Repo.overlay("prod")), Rendered.kustomize(Repo.overlay("e2e")));
        assertThat(drift)
                .as("kustomize/overlays/e2e differs from prod outside DriftGuardTest.ENVIRONMENT: a production "
                        + "setting belongs in prod (or base, a component) and reaches e2e unchanged; a field "
                        + "of the environment goes in ENVIRONMENT with why")
                .isEmpty();
    }

    @Test
    void everyEnvironmentFieldIsUsed() {
        Set<String> differing = differences(
                        Rendered.kustomize(Repo.overlay("prod")), Rendered.kustomize(Repo.overlay("e2e")))
                .keySet();
        for (Environment field : ENVIRONMENT) {
            assertThat(differing.stream().anyMatch(d -> matches(field, d)))
                    .as(
                            "ENVIRONMENT %s %s matches no difference: remove it (and the patch that set it)",
                            field.object(), field.path())
                    .isTrue();
        }
    }

    /** Negative control: a setting only prod has, or only e2e, is drift; the environment is not. */
    @Test
    void aSettingOnlyOneSideHasIsDrift() {
        Rendered prod = Rendered.kustomize(Repo.overlay("prod"));
        Rendered e2e = Rendered.kustomize(Repo.overlay("e2e"));
        ObjectNode conf = (ObjectNode) prod.one("FlinkDeployment").at("/spec/flinkConfiguration");
        conf.put("state.backend.local-recovery", "true");
        ObjectNode e2eConf = (ObjectNode) e2e.one("FlinkDeployment").at("/spec/flinkConfiguration");
        e2eConf.put("heartbeat.timeout", "5 s");
        e2eConf.put("execution.checkpointing.dir", "s3://elsewhere/checkpoints");

        assertThat(drift(prod, e2e))
                .containsOnlyKeys(
                        FLINK + " " + CONF + "state.backend.local-recovery", FLINK + " " + CONF + "heartbeat.timeout");
    }

    /**
     * What the Flink line changes (kustomize/components/flink-2.2 and the job image built for it):
     * all that may differ between the e2e overlay on 1.20 and the one on 2.2.
     */
    static final List<Environment> FLINK_LINE = List.of(
            new Environment(FLINK, "/spec/flinkVersion", "the line"),
            new Environment(FLINK, "/spec/image", "the job built for the line"),
            new Environment(
                    "Job/lineflow-migrate",
                    "/spec/template/spec/containers/migrate/image",
                    "the schema migration runs from the job's image"),
            new Environment(
                    FLINK,
                    "/spec/podTemplate/spec/containers/flink-main-container/env/ENABLE_BUILT_IN_PLUGINS/value",
                    "the S3 plugin is named by the line's version"));

    /**
     * The e2e drill on Flink 2.2 runs overlay e2e-flink-2.2: it must be e2e, and so prod, with only
     * the line changed; the four fields must all change, or the overlay is not on 2.2.
     */
    @Test
    void e2eOnFlink22IsE2eWithOnlyTheLineChanged() {
        Rendered e2e = Rendered.kustomize(Repo.overlay("e2e"));
        Rendered onNext = Rendered.kustomize(Repo.overlay("e2e-flink-2.2"));
        assertThat(drift(e2e, onNext, FLINK_LINE)).isEmpty();
        assertThat(differences(e2e, onNext).values())
                .containsExactlyInAnyOrder(
                        "prod: v1_20 / e2e: v2_2",
                        "prod: lineflow-job:e2e / e2e: lineflow-job:e2e-flink-2.2",
                        "prod: lineflow-job:e2e / e2e: lineflow-job:e2e-flink-2.2",
                        "prod: flink-s3-fs-hadoop-1.20.1.jar / e2e: flink-s3-fs-hadoop-2.2.0.jar");
    }

    /** Differences that no {@link #ENVIRONMENT} field allows. */
    static Map<String, String> drift(Rendered prod, Rendered e2e) {
        return drift(prod, e2e, ENVIRONMENT);
    }

    /** Differences that no field of {@code allowed} allows. */
    static Map<String, String> drift(Rendered prod, Rendered e2e, List<Environment> allowed) {
        Map<String, String> drift = new TreeMap<>();
        differences(prod, e2e).forEach((where, what) -> {
            if (allowed.stream().noneMatch(f -> matches(f, where))) {
                drift.put(where, what);
            }
        });
        return drift;
    }

    private static boolean matches(Environment field, String where) {
        int space = where.indexOf(' ');
        return space > 0 && field.matches(where.substring(0, space), where.substring(space + 1));
    }

    /** "Kind/name path" → "prod: … / e2e: …" for every leaf that differs or exists on one side only. */
    static Map<String, String> differences(Rendered prod, Rendered e2e) {
        Map<String, String> a = leaves(prod);
        Map<String, String> b = leaves(e2e);
        Map<String, String> out = new TreeMap<>();
        Set<String> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        for (String key : keys) {
            String x = a.get(key);
            String y = b.get(key);
            if (x == null || !x.equals(y)) {
                out.put(key, "prod: " + (x == null ? "(absent)" : x) + " / e2e: " + (y == null ? "(absent)" : y));
            }
        }
        return out;
    }

    /** Every leaf of every object, list entries with a name keyed by it, generated names unhashed. */
    private static Map<String, String> leaves(Rendered r) {
        Set<String> generated = new TreeSet<>();
        for (ObjectNode o : r.ofKind("ConfigMap")) {
            String name = o.at("/metadata/name").asText();
            if (GENERATED.matcher(name).matches()) {
                generated.add(name);
            }
        }
        Map<String, String> out = new TreeMap<>();
        for (ObjectNode o : r.objects) {
            String id = unhashed(Rendered.id(o), generated);
            flatten(o, "", generated, (path, value) -> out.put(id + " " + path, value));
        }
        return out;
    }

    private interface Leaf {
        void accept(String path, String value);
    }

    private static void flatten(JsonNode node, String path, Set<String> generated, Leaf leaf) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                String child = path + "/" + e.getKey();
                if (child.matches("/data/.+\\.properties")) {
                    properties(e.getValue().asText()).forEach((k, v) -> leaf.accept(child + "/" + k, v));
                } else {
                    flatten(e.getValue(), child, generated, leaf);
                }
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                String name = item.path("name").isTextual() ? item.path("name").asText() : String.valueOf(i);
                flatten(item, path + "/" + name, generated, leaf);
            }
        } else {
            String value = node instanceof TextNode t ? unhashed(t.asText(), generated) : node.toString();
            leaf.accept(path, value);
        }
    }

    private static String unhashed(String value, Set<String> generated) {
        for (String name : generated) {
            if (value.endsWith(name)) {
                var m = GENERATED.matcher(name);
                if (m.matches()) {
                    return value.substring(0, value.length() - name.length()) + m.group(1);
                }
            }
        }
        return value;
    }

    private static Map<String, String> properties(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> out = new TreeMap<>();
        p.forEach((k, v) -> out.put((String) k, (String) v));
        return out;
    }

    /** {@code *} matches one segment (between separators), everything else literally. */
    private static boolean glob(String pattern, String value, String separator) {
        String[] p = pattern.split(Pattern.quote(separator), -1);
        String[] v = value.split(Pattern.quote(separator), -1);
        if (p.length != v.length) {
            return false;
        }
        for (int i = 0; i < p.length; i++) {
            if (!p[i].equals("*") && !p[i].equals(v[i])) {
                return false;
            }
        }
        return true;
    }
}
