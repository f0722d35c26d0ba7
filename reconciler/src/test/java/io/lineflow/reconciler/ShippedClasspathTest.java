package io.lineflow.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.Await;
import io.lineflow.testing.TestServices;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The reconciler as its image runs it: {@code Main run} in a JVM of its own on this module's runtime
 * classpath only (what Jib packs: the compile and runtime scopes, nothing of the test scope), against
 * an API server (fabric8's mock, CRUD), a real Kafka and a real PostgreSQL. Its pass judges a
 * deployment just applied (the operator API works out its lifecycle state) and one that runs, and
 * its audit completes a round of the latter.
 *
 * <p>Every other test of this module runs on the test classpath, which also holds what only a test
 * dependency brings. A library declared here with a test scope once took itself out of the image:
 * the audit's thread died on its first round without a word, and every test passed.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class ShippedClasspathTest {
    private static final Path WORK = Path.of("target", "it", "shipped-classpath");
    private static final String NS = "shipped";

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    KubernetesClient client;
    private Process reconciler;

    @BeforeAll
    static void schema() throws Exception {
        SERVICES.kafka().createTopic("shipped-events", 1);
        try (Connection c = SERVICES.postgres().connect()) {
            TestUtils.jobSchema(c); // the job's own schema
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (reconciler != null) {
            reconciler.destroy();
            if (!reconciler.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                reconciler.destroyForcibly();
            }
        }
    }

    @Test
    void theImagesClasspathRunsAPassAndAnAuditRound() throws Exception {
        client.configMaps()
                .inNamespace(NS)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("line-config")
                        .withNamespace(NS)
                        .endMetadata()
                        .addToData(
                                "lineflow.properties",
                                "lineflow.kafka.bootstrap-servers="
                                        + SERVICES.kafka().bootstrapServers()
                                        + "\nlineflow.kafka.topic=shipped-events\nlineflow.kafka.group-id=lineflow\n"
                                        + "lineflow.jdbc.url="
                                        + SERVICES.postgres().jdbcUrl() + "\n")
                        .build())
                .create();
        client.resource(TestUtils.lineflowDeployment(NS, "line", "line-config")).create();
        // Just applied: no spec reconciled yet, which is where the operator API's status reading
        // calls commons-lang3.
        FlinkDeployment fresh = TestUtils.flinkDeployment(NS, "fresh");
        fresh.setStatus(new FlinkDeploymentStatus());
        client.resource(fresh).create();

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = WORK.resolve("reconciler.log");
        Files.createDirectories(WORK);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                "target/classes" + File.pathSeparator
                        + Files.readString(Path.of("target", "runtime-classpath.txt"))
                                .strip(),
                "io.lineflow.reconciler.Main",
                "run"));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("LINEFLOW_") || k.startsWith("KUBERNETES_") || k.equals("KUBECONFIG"));
        env.put("KUBERNETES_MASTER", client.getMasterUrl().toString());
        env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
        env.put("LINEFLOW_RECONCILER_NAMESPACES", NS);
        env.put("LINEFLOW_RECONCILER_INTERVAL", "2 s");
        env.put("LINEFLOW_RECONCILER_HTTP_PORT", Integer.toString(port));
        env.put("LINEFLOW_RECONCILER_KAFKA_BOOTSTRAP_SERVERS", SERVICES.kafka().bootstrapServers());
        env.put("LINEFLOW_RECONCILER_AUDIT_JDBC_URL", SERVICES.postgres().jdbcUrl());
        env.put("LINEFLOW_RECONCILER_AUDIT_JDBC_USER", SERVICES.postgres().user());
        env.put("LINEFLOW_RECONCILER_AUDIT_PERIOD", "10 s");
        reconciler = pb.start();

        HttpClient http = HttpClient.newHttpClient();
        String[] metrics = {""};
        String audited =
                "lineflow_audit_runs_total{namespace=\"" + NS + "\",deployment=\"line\",outcome=\"completed\"}";
        Await.until(
                "the reconciler's pass to judge both deployments and its audit to complete a round of 'line'"
                        + " (its log: " + log.toAbsolutePath() + ")",
                Duration.ofMinutes(2),
                e -> true,
                () -> {
                    assertThat(reconciler.isAlive())
                            .as("the reconciler is running (its log: %s)", log)
                            .isTrue();
                    metrics[0] = http.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .body();
                    return metrics[0].contains("lineflow_reconciler_health{namespace=\"" + NS + "\",name=\"fresh\"}")
                            && metrics[0].contains("lineflow_reconciler_health{namespace=\"" + NS + "\",name=\"line\"}")
                            && metrics[0].contains(audited);
                });
        String output = Files.readString(log);
        assertThat(output)
                .as("the reconciler's log")
                .doesNotContain("NoClassDefFoundError")
                .doesNotContain("ClassNotFoundException")
                .doesNotContain("Reconciling " + NS + "/")
                .doesNotContain("Audit of " + NS + "/line failed");
    }
}
