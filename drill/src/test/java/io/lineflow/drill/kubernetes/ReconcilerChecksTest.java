package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Scenario;
import io.lineflow.drill.core.ScenarioResult;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The checks of what the in-cluster reconciler says after a scenario: its continuous audit, read
 * from its scrape endpoint served on loopback, and its verdict and Events on a {@link FakeOperator}.
 */
@EnableKubernetesMockClient(crud = true)
class ReconcilerChecksTest {
    private static final String NS = "lineflow";
    private static final String RECONCILER_IP = "10.244.0.20";
    private static final Duration SHORT = Duration.ofMillis(300);

    KubernetesClient client;

    private FakeOperator operator;
    private FlinkCluster flink;
    private TestingHttpServer reconciler;
    private AuditChecks audit;
    private final List<String> log = new ArrayList<>();
    private final ScenarioResult result = new ScenarioResult(new Scenario("kubernetes:steady", false, false));

    @BeforeEach
    void deployed() throws IOException {
        operator = FakeOperator.deploy(client, NS);
        flink = new FlinkCluster(client, NS, "operator");
        Pod pod = FakeOperator.pod(NS, "lineflow-reconciler-1", ReconcilerMetrics.RECONCILER, "reconciler", true);
        pod.getStatus().setPodIP(RECONCILER_IP);
        client.resource(pod).create();
        reconciler = new TestingHttpServer();
        reconciler.on("/metrics", "lineflow_reconciler_passes_total 3\n");
        audit = new AuditChecks(new ReconcilerMetrics(flink.pods(), ip -> reconciler.uri()), SHORT, log::add);
    }

    @AfterEach
    void stop() {
        reconciler.close();
        operator.close();
    }

    /** The reconciler's audit gauges for lineflow: a pass completed at {@code completed} (epoch s) that took 1 s. */
    private void audited(double completed, int matched, int wrong) {
        String labels = "namespace=\"lineflow\",deployment=\"lineflow\"";
        StringBuilder text = new StringBuilder();
        for (String r : List.of("matched", "missing", "extra", "wrong", "unjudged")) {
            int n = r.equals("matched") ? matched : r.equals("wrong") ? wrong : 0;
            text.append("lineflow_audit_rows{")
                    .append(labels)
                    .append(",result=\"")
                    .append(r)
                    .append("\"} ");
            text.append(n).append('\n');
        }
        text.append("lineflow_audit_last_duration_seconds{").append(labels).append("} 1.0\n");
        text.append("lineflow_audit_last_completed_timestamp_seconds{")
                .append(labels)
                .append("} ");
        text.append(completed).append('\n');
        reconciler.on("/metrics", text.toString());
    }

    private static double nowSeconds() {
        return System.currentTimeMillis() / 1000.0;
    }

    @Test
    void afterAHealthyScenarioAnAuditThatBeganAfterTheInputMustFindTheTableExact() {
        long since = System.currentTimeMillis();
        audit.exact("steady", since, result);
        assertThat(result.problems)
                .containsExactly("AUDIT no continuous audit completed within 0 min of the input's end");

        result.problems.clear();
        audited(since / 1000.0 - 5, 96, 0);
        audit.exact("steady", since, result);
        assertThat(result.problems)
                .as("an audit that began before the input ended does not count")
                .hasSize(1)
                .allMatch(p -> p.startsWith("AUDIT no continuous audit completed"));

        result.problems.clear();
        audited(nowSeconds() + 2, 95, 1);
        audit.exact("steady", since, result);
        assertThat(result.problems).singleElement().asString().startsWith("AUDIT the continuous audit disagrees");

        result.problems.clear();
        audited(nowSeconds() + 2, 0, 0);
        audit.exact("steady", since, result);
        assertThat(result.problems)
                .as("an audit that judged no row proves nothing")
                .hasSize(1);

        result.problems.clear();
        audited(nowSeconds() + 2, 96, 0);
        audit.exact("steady", since, result);
        assertThat(result.problems).isEmpty();
        assertThat(result.monitoring)
                .last()
                .isEqualTo("continuous audit after the scenario: 96 rows matched, 0 missing, 0 extra, 0 wrong, 0 not"
                        + " judged");
    }

    @Test
    void theAdditiveSinkIsCaughtOnlyByWrongRowsInAnAuditAfterTheTableWasRead() {
        ScenarioResult control = new ScenarioResult(new Scenario("kubernetes:control:additive-sink", true, true));
        long since = System.currentTimeMillis();
        audited(nowSeconds() + 2, 90, 0);
        audit.caughtDoubling(since, control);
        assertThat(control.error).startsWith("the continuous audit did not report the additive sink's wrong rows");

        control.error = null;
        audited(nowSeconds() + 2, 80, 10);
        audit.caughtDoubling(since, control);
        assertThat(control.error).isNull();
        assertThat(control.monitoring)
                .singleElement()
                .asString()
                .startsWith("the continuous audit caught the additive sink");
    }

    private void summary(String status, String findings) {
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(ReconcilerOutputs.HEALTH)
                        .withNamespace(NS)
                        .addToAnnotations(ReconcilerOutputs.STATUS_ANNOTATION, status)
                        .endMetadata()
                        .addToData("summary.json", "{\"findings\":[" + findings + "]}")
                        .build())
                .createOr(c -> c.update());
    }

    @Test
    void theWaitsAreTheDeployedReconcilersAndJobs() {
        assertThatThrownBy(() -> ReconcilerHealth.of(flink, log::add))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the reconciler's Deployment lineflow-reconciler in lineflow could not be read");

        client.resource(new DeploymentBuilder()
                        .withNewMetadata()
                        .withName(ReconcilerOutputs.RECONCILER)
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .withNewTemplate()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("reconciler")
                        .addNewEnv()
                        .withName("LINEFLOW_RECONCILER_NAMESPACES")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("metadata.namespace")
                        .endFieldRef()
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("LINEFLOW_RECONCILER_INTERVAL")
                        .withValue("15 s")
                        .endEnv()
                        .addNewEnv()
                        .withName("LINEFLOW_RECONCILER_CHECKPOINT_FAILURES_WINDOW")
                        .withValue("2 min")
                        .endEnv()
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .create();
        ReconcilerHealth defaults = ReconcilerHealth.of(flink, log::add);
        assertThat(defaults.healthy())
                .as("Flink's default checkpoint timeout (10 min), the window, two passes")
                .isEqualTo(Duration.ofSeconds(600 + 120 + 30));
        assertThat(defaults.reported()).isEqualTo(Duration.ofSeconds(45));

        client.resources(FlinkDeployment.class)
                .inNamespace(NS)
                .withName(FlinkCluster.NAME)
                .edit(fd -> {
                    fd.getSpec().setFlinkConfiguration(Map.of("execution.checkpointing.timeout", "60 s"));
                    return fd;
                });
        assertThat(ReconcilerHealth.of(flink, log::add).healthy()).isEqualTo(Duration.ofSeconds(60 + 120 + 30));
    }

    @Test
    void afterAHealthyScenarioTheReconcilerMustSayHealthy() {
        ReconcilerHealth health = new ReconcilerHealth(flink.reconciler(), SHORT, SHORT, log::add);
        summary("WARNING", "\"CHECKPOINTS_FAILING\"");
        health.healthyAgain(result);
        assertThat(result.problems)
                .containsExactly("RECONCILER reports 'WARNING', not HEALTHY, 0 s after the table settled");

        result.problems.clear();
        summary("HEALTHY", "");
        health.healthyAgain(result);
        assertThat(result.problems).isEmpty();
        assertThat(log).anyMatch(l -> l.matches("  the reconciler says HEALTHY \\d+\\.\\d s after the table settled"));
    }

    @Test
    void thePitfallMustBeReportedAsAnEventAndInTheSummaryWithinOnePass() {
        ReconcilerHealth health = new ReconcilerHealth(flink.reconciler(), SHORT, SHORT, log::add);
        ScenarioResult control = new ScenarioResult(new Scenario("kubernetes:control:no-checkpoints", true, true));
        summary("CRITICAL", "\"CHECKPOINTING_DISABLED\"");
        health.pitfallReported("CHECKPOINTING_DISABLED", System.currentTimeMillis(), control);
        assertThat(control.error)
                .as("in the summary but no Event")
                .isEqualTo("the reconciler did not report CHECKPOINTING_DISABLED as an Event and in its summary"
                        + " within 0 s");

        control.error = null;
        operator.event("lineflow.1", "CHECKPOINTING_DISABLED", FlinkCluster.NAME);
        health.pitfallReported("CHECKPOINTING_DISABLED", System.currentTimeMillis(), control);
        assertThat(control.error).isNull();
        assertThat(log)
                .anyMatch(l -> l.startsWith("  the reconciler reported CHECKPOINTING_DISABLED (Event and summary)"));
    }
}
