package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * What the drill reads of the reconciler's scrape endpoint: its pod found in fabric8's mock API
 * server next to a {@link FakeOperator}'s, its exposition served on loopback.
 */
@EnableKubernetesMockClient(crud = true)
class ReconcilerMetricsTest {
    private static final String NS = "lineflow";
    private static final String RECONCILER_IP = "10.244.0.20";
    /** An address on which nothing listens: a reconciler that does not answer. */
    private static final URI NOBODY = URI.create("http://127.0.0.1:1");

    /**
     * The reconciler's exposition as it renders it, watching a second deployment {@code canary} in
     * the same namespace (sorted first) besides lineflow.
     */
    private static final String EXPOSITION = String.join(
            "\n",
            "# HELP lineflow_reconciler_health Worst finding severity per deployment: 0 healthy/none, 1 info, 2 warning, 3 critical.",
            "# TYPE lineflow_reconciler_health gauge",
            "# HELP lineflow_reconciler_finding 1 for every finding currently reported.",
            "# TYPE lineflow_reconciler_finding gauge",
            "# HELP lineflow_reconciler_duplicate_ratio Source records/s divided by the topic's consume rate (about 2 when doubled).",
            "# TYPE lineflow_reconciler_duplicate_ratio gauge",
            "lineflow_reconciler_health{namespace=\"lineflow\",name=\"canary\"} 3",
            "lineflow_reconciler_checkpoints_failed{namespace=\"lineflow\",name=\"canary\"} 9",
            "lineflow_reconciler_checkpoints_completed{namespace=\"lineflow\",name=\"canary\"} 2",
            "lineflow_reconciler_duplicate_ratio{namespace=\"lineflow\",name=\"canary\"} 2.0100",
            "lineflow_reconciler_consumer_lag{namespace=\"lineflow\",name=\"canary\"} 120",
            "lineflow_reconciler_health{namespace=\"lineflow\",name=\"lineflow\"} 0",
            "lineflow_reconciler_job_restarts{namespace=\"lineflow\",name=\"lineflow\"} 1",
            "lineflow_reconciler_checkpoints_failed{namespace=\"lineflow\",name=\"lineflow\"} 4",
            "lineflow_reconciler_checkpoints_completed{namespace=\"lineflow\",name=\"lineflow\"} 11",
            "lineflow_reconciler_duplicate_ratio{namespace=\"lineflow\",name=\"lineflow\"} 1.0213",
            "# TYPE lineflow_reconciler_passes_total counter",
            "lineflow_reconciler_passes_total 57",
            "# TYPE lineflow_reconciler_deployments gauge",
            "lineflow_reconciler_deployments 2",
            "");

    KubernetesClient client;

    private FakeOperator operator;

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
        operator.secondJobManager();
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    /** The reconciler's pod, at {@link #RECONCILER_IP}. */
    private void reconcilerPod() {
        Pod pod = FakeOperator.pod(NS, "lineflow-reconciler-1", ReconcilerMetrics.RECONCILER, "reconciler", true);
        pod.getStatus().setPodIP(RECONCILER_IP);
        client.resource(pod).create();
    }

    /** The reconciler's metrics, with each pod IP's endpoint at {@code at}; at any other IP nobody answers. */
    private ReconcilerMetrics metrics(Map<String, URI> at) {
        return new ReconcilerMetrics(new ClusterPods(client, NS, FlinkCluster.NAME), ip -> at.getOrDefault(ip, NOBODY));
    }

    @Test
    void aGaugeIsTheValueTheReconcilerExportsForLineflowNotAnotherDeployment() throws IOException {
        reconcilerPod();
        try (TestingHttpServer reconciler = new TestingHttpServer();
                TestingHttpServer jobManager = new TestingHttpServer()) {
            reconciler.on("/metrics", EXPOSITION);
            jobManager.on(
                    "/metrics",
                    "lineflow_reconciler_checkpoints_failed{namespace=\"lineflow\",name=\"lineflow\"} 77\n");
            ReconcilerMetrics metrics = metrics(Map.of(
                    RECONCILER_IP,
                    reconciler.uri(),
                    FakeOperator.JM_1_IP,
                    jobManager.uri(),
                    FakeOperator.JM_2_IP,
                    jobManager.uri()));

            assertThat(metrics.gauge("lineflow_reconciler_checkpoints_failed")).contains(4.0);
            assertThat(metrics.gauge("lineflow_reconciler_checkpoints_completed"))
                    .contains(11.0);
            assertThat(metrics.gauge("lineflow_reconciler_health")).contains(0.0);
            assertThat(metrics.gauge("lineflow_reconciler_duplicate_ratio")).contains(1.0213);
            assertThat(reconciler.asked()).containsOnly("/metrics").hasSize(4);
            assertThat(jobManager.asked())
                    .as("only the reconciler's pod is scraped")
                    .isEmpty();
        }
    }

    @Test
    void aGaugeIsEmptyWhenExportedForAnotherDeploymentOnlyOrNotAtAll() throws IOException {
        reconcilerPod();
        try (TestingHttpServer reconciler = new TestingHttpServer()) {
            reconciler.on("/metrics", EXPOSITION);
            ReconcilerMetrics metrics = metrics(Map.of(RECONCILER_IP, reconciler.uri()));

            assertThat(metrics.gauge("lineflow_reconciler_consumer_lag"))
                    .as("canary's only")
                    .isEmpty();
            assertThat(metrics.gauge("lineflow_reconciler_checkpoint_age_seconds"))
                    .isEmpty();
            assertThat(metrics.gauge("lineflow_reconciler_passes_total"))
                    .as("no labels, so not lineflow's")
                    .isEmpty();
        }
    }

    @Test
    void aGaugeIsEmptyWithoutAReconcilerThatAnswers() throws IOException {
        try (TestingHttpServer reconciler = new TestingHttpServer()) {
            reconciler.on("/metrics", EXPOSITION);
            ReconcilerMetrics metrics = metrics(Map.of(RECONCILER_IP, reconciler.uri()));
            assertThat(metrics.gauge("lineflow_reconciler_checkpoints_failed"))
                    .as("no reconciler pod")
                    .isEmpty();
            assertThat(reconciler.asked()).isEmpty();

            reconcilerPod();
            reconciler.on("/metrics", 503, EXPOSITION);
            assertThat(metrics.gauge("lineflow_reconciler_checkpoints_failed"))
                    .as("an error status, whatever the body")
                    .isEmpty();
            assertThat(reconciler.asked()).containsExactly("/metrics");
        }
        assertThat(metrics(Map.of()).gauge("lineflow_reconciler_checkpoints_failed"))
                .as("nobody listening")
                .isEmpty();
    }

    @Test
    void eachScrapeOfTheWatchReadsLineflowsDuplicateRatio() {
        assertThat(ReconcilerMetrics.duplicateRatio(EXPOSITION)).contains(1.0213);
        assertThat(ReconcilerMetrics.duplicateRatio(EXPOSITION.replace(
                        "lineflow_reconciler_duplicate_ratio{namespace=\"lineflow\",name=\"lineflow\"} 1.0213\n", "")))
                .as("the job just (re)started: no ratio for lineflow, canary's is not it")
                .isEmpty();
    }

    @Test
    void eachScrapeOfTheWatchSeesADuplicateConsumptionFindingAndNoOtherCode() {
        assertThat(ReconcilerMetrics.reportsDuplicateConsumption(EXPOSITION))
                .as("the finding's HELP and TYPE lines are no finding")
                .isFalse();
        assertThat(
                        ReconcilerMetrics.reportsDuplicateConsumption(
                                EXPOSITION
                                        + "lineflow_reconciler_finding{namespace=\"lineflow\",name=\"lineflow\",code=\"CHECKPOINTING_DISABLED\",severity=\"CRITICAL\"} 1\n"))
                .isFalse();
        assertThat(
                        ReconcilerMetrics.reportsDuplicateConsumption(
                                EXPOSITION
                                        + "lineflow_reconciler_finding{namespace=\"lineflow\",name=\"lineflow\",code=\"DUPLICATE_CONSUMPTION\",severity=\"CRITICAL\"} 1\n"))
                .isTrue();
        assertThat(
                        ReconcilerMetrics.reportsDuplicateConsumption(
                                EXPOSITION
                                        + "lineflow_reconciler_finding{namespace=\"lineflow\",name=\"canary\",code=\"DUPLICATE_CONSUMPTION\",severity=\"CRITICAL\"} 1\n"))
                .as("another deployment's finding")
                .isFalse();
    }

    @Test
    void aWatchWithAFindingOrTooFewRatiosIsAProblem() {
        assertThat(new ReconcilerMetrics.Seen(5, List.of(1.0, 1.01, 0.99), 0).problem())
                .isEmpty();
        assertThat(new ReconcilerMetrics.Seen(5, List.of(1.0, 2.01, 2.0), 2).problem())
                .hasValue("DUPLICATES the reconciler reported DUPLICATE_CONSUMPTION in 2 of 5 scrapes after the"
                        + " failover (ratios [1.0, 2.01, 2.0])");
        assertThat(new ReconcilerMetrics.Seen(5, List.of(1.0, 1.01), 0).problem())
                .hasValue("DUPLICATES the reconciler measured the duplicate ratio in only 2 of 5 scrapes; at least 3"
                        + " are needed to say none");
        assertThat(new ReconcilerMetrics.Seen(5, List.of(1.0, 2.01, 2.0), 0).max())
                .isEqualTo(2.01);
    }

    @Test
    void theAuditIsReadForLineflowWithItsStartAndRowsAndIsEmptyBeforeTheFirstCompletes() {
        String exposition = String.join(
                "\n",
                "lineflow_audit_rows{namespace=\"lineflow-e2e\",deployment=\"other\",result=\"wrong\"} 9",
                "lineflow_audit_rows{namespace=\"lineflow-e2e\",deployment=\"lineflow\",result=\"matched\"} 96",
                "lineflow_audit_rows{namespace=\"lineflow-e2e\",deployment=\"lineflow\",result=\"missing\"} 0",
                "lineflow_audit_rows{namespace=\"lineflow-e2e\",deployment=\"lineflow\",result=\"extra\"} 0",
                "lineflow_audit_rows{namespace=\"lineflow-e2e\",deployment=\"lineflow\",result=\"wrong\"} 1",
                "lineflow_audit_rows{namespace=\"lineflow-e2e\",deployment=\"lineflow\",result=\"unjudged\"} 8",
                "lineflow_audit_last_duration_seconds{namespace=\"lineflow-e2e\",deployment=\"lineflow\"} 1.5",
                "lineflow_audit_last_completed_timestamp_seconds{namespace=\"lineflow-e2e\",deployment=\"lineflow\"} 1796316361.5",
                "");

        ReconcilerMetrics.Audit a = ReconcilerMetrics.audit(exposition).orElseThrow();

        assertThat(a.began()).isEqualTo(1796316360.0);
        assertThat(a.matched()).isEqualTo(96);
        assertThat(a.wrong()).isEqualTo(1);
        assertThat(a.mismatched()).isEqualTo(1);
        assertThat(a.unjudged()).isEqualTo(8);
        // Scheduled but not completed: the reconciler exports the time as NaN.
        assertThat(ReconcilerMetrics.audit(exposition.replace("} 1796316361.5", "} NaN")))
                .isEmpty();
    }
}
