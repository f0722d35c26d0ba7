package io.lineflow.reconciler.controller;

import static io.lineflow.reconciler.TestUtils.NOW;
import static io.lineflow.reconciler.TestUtils.checkpoints;
import static io.lineflow.reconciler.TestUtils.flinkDeployment;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.TestingClock;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.act.Remediator;
import io.lineflow.reconciler.act.SummaryPublisher;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.observe.Annotations;
import io.lineflow.reconciler.observe.TestingFlinkRestClient;
import io.lineflow.reconciler.observe.TestingKafkaObserver;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The observe-evaluate-act loop against fabric8's mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class ReconcilerMockServerTest {

    static final String NS = "flink";

    KubernetesClient client;
    TestingClock clock;
    TestingFlinkRestClient rest;
    Metrics metrics;
    Reconciler reconciler;

    @BeforeEach
    void setUp() {
        clock = new TestingClock(NOW);
        rest = new TestingFlinkRestClient().answerAll(url -> healthyJob(100));
        reconciler = reconciler(Map.of());
    }

    @AfterEach
    void tearDown() {
        reconciler.close();
    }

    private Reconciler reconciler(Map<String, String> settings) {
        Configuration conf = ReconcilerOptions.fromMap(settings);
        metrics = new Metrics(conf, clock);
        return TestUtils.reconciler(
                conf,
                client,
                rest,
                new TestingKafkaObserver(clock, 100, 500, Duration.ofDays(7)),
                null,
                metrics,
                clock);
    }

    private FlinkObservation healthyJob(double sourceRate) {
        return TestUtils.flink(TestUtils.job(
                JobStatus.RUNNING,
                0,
                checkpoints(clock.instant().minusSeconds(20), 50, 0),
                TestUtils.source(sourceRate)));
    }

    private FlinkObservation duplicatedJob() {
        return TestUtils.flink(TestUtils.job(
                JobStatus.RUNNING, 0, checkpoints(clock.instant().minusSeconds(20), 50, 0), TestUtils.doubledSource()));
    }

    private FlinkDeployment create(FlinkDeployment fd) {
        return client.resource(fd).create();
    }

    private Map<DeploymentKey, HealthResult> pass() {
        Map<DeploymentKey, HealthResult> r = reconciler.pass(
                client.resources(FlinkDeployment.class).inNamespace(NS).list().getItems());
        clock.advance(Duration.ofSeconds(30));
        return r;
    }

    private List<Event> events() {
        return client.v1().events().inNamespace(NS).list().getItems();
    }

    private void pod(String name, String app, String component) {
        client.pods()
                .inNamespace(NS)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .addToLabels("app", app)
                        .addToLabels("component", component)
                        .addToLabels("type", "flink-native-kubernetes")
                        .endMetadata()
                        .build())
                .create();
    }

    private List<String> podNames() {
        return client.pods().inNamespace(NS).list().getItems().stream()
                .map(p -> p.getMetadata().getName())
                .sorted()
                .toList();
    }

    @Test
    void findingsBecomeEventsOnTheDeploymentAndAJsonSummary() {
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getSpec().getFlinkConfiguration().remove("high-availability.type");
        create(fd);

        Map<DeploymentKey, HealthResult> results = pass();

        assertThat(results.get(new DeploymentKey(NS, "lineflow")).codes()).containsExactly(FindingCode.HA_DISABLED);
        List<Event> events = events();
        assertThat(events).hasSize(1);
        Event e = events.get(0);
        assertThat(e.getReason()).isEqualTo("HA_DISABLED");
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("FlinkDeployment");
        assertThat(e.getInvolvedObject().getName()).isEqualTo("lineflow");
        var cm = client.configMaps()
                .inNamespace(NS)
                .withName("lineflow-lineflow-health")
                .get();
        assertThat(cm).isNotNull();
        assertThat(cm.getData().get(SummaryPublisher.DATA_KEY))
                .contains("\"status\" : \"UNHEALTHY\"")
                .contains("HA_DISABLED");
        assertThat(cm.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("FlinkDeployment"));
        assertThat(metrics.render())
                .contains(
                        "lineflow_reconciler_finding{namespace=\"flink\",name=\"lineflow\",code=\"HA_DISABLED\",severity=\"CRITICAL\"} 1");
    }

    @Test
    void healthyDeploymentGetsNoEventAndAHealthySummary() {
        create(flinkDeployment(NS, "lineflow"));
        // Three passes, 30 s apart: the duplicate ratio needs samples 60 s apart (the span of the
        // source's own rate).
        pass();
        pass();
        pass();
        assertThat(events()).isEmpty();
        assertThat(summary()).contains("HEALTHY");
        assertThat(metrics.render())
                .contains("lineflow_reconciler_duplicate_ratio{namespace=\"flink\",name=\"lineflow\"} 1")
                .contains(
                        "lineflow_reconciler_duplicates_judged{namespace=\"flink\",name=\"lineflow\",readers=\"KAFKA_SOURCE\"} 1");
    }

    @Test
    void aJobWhoseReaderIsNotRecognisedIsExportedAsNotJudged() {
        rest.answerAll(url -> TestUtils.flink(
                TestUtils.job(JobStatus.RUNNING, 0, checkpoints(clock.instant().minusSeconds(20), 50, 0), null)));
        create(flinkDeployment(NS, "lineflow"));
        pass();
        assertThat(metrics.render())
                .contains("lineflow_reconciler_duplicates_judged{namespace=\"flink\",name=\"lineflow\",readers=\"\"} 0")
                .contains(
                        "lineflow_reconciler_finding{namespace=\"flink\",name=\"lineflow\",code=\"DUPLICATES_NOT_JUDGED\",severity=\"INFO\"} 1");
        assertThat(summary())
                .as("the summary's line for it, the deployment still HEALTHY")
                .contains("DUPLICATES_NOT_JUDGED")
                .contains("HEALTHY");
    }

    @Test
    void aPersistingFindingIsAnnouncedOnceNotEveryPass() {
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getSpec().getFlinkConfiguration().remove("state.savepoints.dir");
        create(fd);
        for (int i = 0; i < 10; i++) {
            pass();
        }
        List<Event> events = events();
        assertThat(events).hasSize(1);
        assertThat(events.get(0).getCount()).isEqualTo(1);
    }

    @Test
    void aPersistingFindingIsRepeatedAfterTheRepeatIntervalByBumpingTheCount() {
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getSpec().getFlinkConfiguration().remove("state.savepoints.dir");
        create(fd);
        pass();
        clock.advance(Duration.ofMinutes(61));
        pass();
        assertThat(events())
                .singleElement()
                .satisfies(e -> assertThat(e.getCount()).isEqualTo(2));
    }

    @Test
    void aClearedFindingGetsOneResolvedEvent() {
        FlinkDeployment fd = create(flinkDeployment(NS, "lineflow"));
        rest.answerAll(url -> FlinkObservation.failed(url, "ConnectException: refused"));
        pass();
        rest.answerAll(url -> healthyJob(100));
        pass();
        pass();
        assertThat(events())
                .extracting(Event::getReason)
                .containsExactlyInAnyOrder("OBSERVATION_FAILED", "OBSERVATION_FAILED_RESOLVED");
        assertThat(fd).isNotNull();
    }

    @Test
    void unreachableRestEndpointIsReportedAndTheLoopGoesOn() {
        create(flinkDeployment(NS, "a"));
        create(flinkDeployment(NS, "b"));
        rest.answerAll(url -> url.contains("//a-rest")
                ? FlinkObservation.failed(url, "HttpTimeoutException: request timed out")
                : healthyJob(100));
        Map<DeploymentKey, HealthResult> r = pass();
        assertThat(r.get(new DeploymentKey(NS, "a")).codes()).containsExactly(FindingCode.OBSERVATION_FAILED);
        assertThat(r.get(new DeploymentKey(NS, "b")).findings()).isEmpty();
    }

    @Test
    void remediationDeletesOnlyThisDeploymentsTaskManagerPodsWhenOptedIn() {
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.REMEDIATE, "true")));
        create(fd);
        create(flinkDeployment(NS, "other"));
        pod("lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        pod("lineflow-taskmanager-1-2", "lineflow", "taskmanager");
        pod("lineflow-7d9f-jm", "lineflow", "jobmanager");
        pod("other-taskmanager-1-1", "other", "taskmanager");
        pod("unrelated", "postgres", "db");
        rest.answer("http://lineflow-rest.flink.svc:8081", duplicatedJob());

        pass(); // first pass: DUPLICATE_CONSUMPTION seen once, not acted on yet
        assertThat(podNames()).hasSize(5);
        pass(); // second consecutive pass: act

        assertThat(podNames()).containsExactly("lineflow-7d9f-jm", "other-taskmanager-1-1", "unrelated");
        assertThat(events())
                .filteredOn(e -> e.getReason().equals(Remediator.REASON))
                .singleElement()
                .satisfies(e ->
                        assertThat(e.getMessage()).contains("lineflow-taskmanager-1-1", "lineflow-taskmanager-1-2"));
        assertThat(metrics.render()).contains("lineflow_reconciler_remediations_total 1");
    }

    @Test
    void remediationIsRateLimited() {
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.REMEDIATE, "true")));
        create(fd);
        rest.answer("http://lineflow-rest.flink.svc:8081", duplicatedJob());
        pod("lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        pass();
        pass();
        assertThat(podNames()).isEmpty();
        pod("lineflow-taskmanager-2-1", "lineflow", "taskmanager"); // Flink brings new TaskManagers
        for (int i = 0; i < 10; i++) { // 5 minutes of passes, still duplicated
            pass();
        }
        assertThat(podNames()).containsExactly("lineflow-taskmanager-2-1");
        clock.advance(Duration.ofMinutes(30));
        pass();
        pass();
        assertThat(podNames()).isEmpty();
    }

    @Test
    void withoutTheAnnotationDuplicateConsumptionIsOnlyReported() {
        create(flinkDeployment(NS, "lineflow"));
        pod("lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        rest.answer("http://lineflow-rest.flink.svc:8081", duplicatedJob());
        Map<DeploymentKey, HealthResult> r = null;
        for (int i = 0; i < 5; i++) {
            r = pass();
        }
        assertThat(r.get(new DeploymentKey(NS, "lineflow")).codes()).contains(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(podNames()).containsExactly("lineflow-taskmanager-1-1");
        assertThat(events()).extracting(Event::getReason).containsExactly("DUPLICATE_CONSUMPTION");
    }

    @Test
    void aJobBuiltWithTwoSourcesOnOneTopicIsReportedButNeverRolled() {
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.REMEDIATE, "true")));
        create(fd);
        pod("lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        FlinkObservation.Source first = TestUtils.source(100);
        FlinkObservation.Source second = new FlinkObservation.Source(
                "v7",
                "Source: replayed-events",
                first.parallelism(),
                first.reader(),
                first.topics(),
                100.0,
                first.assignedSplits(),
                first.partitions());
        rest.answer(
                "http://lineflow-rest.flink.svc:8081",
                new FlinkObservation(
                        "http://lineflow-rest.flink.svc:8081",
                        null,
                        new FlinkObservation.Job(
                                "abc",
                                "lineflow",
                                JobStatus.RUNNING,
                                clock.instant().minusSeconds(3600),
                                0L,
                                checkpoints(clock.instant().minusSeconds(20), 50, 0),
                                List.of(first, second),
                                Set.of())));
        Map<DeploymentKey, HealthResult> r = null;
        for (int i = 0; i < 4; i++) {
            r = pass();
        }
        assertThat(r.get(new DeploymentKey(NS, "lineflow")).codes()).contains(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(podNames())
                .as("a restart builds the job with its two sources again: only reported")
                .containsExactly("lineflow-taskmanager-1-1");
        assertThat(events()).extracting(Event::getReason).doesNotContain(Remediator.REASON);
    }

    @Test
    void globalSwitchOffPreventsRemediationEvenWithTheAnnotation() {
        reconciler.close();
        reconciler = reconciler(Map.of(ReconcilerOptions.REMEDIATION_ENABLED.key(), "false"));
        FlinkDeployment fd = flinkDeployment(NS, "lineflow");
        fd.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.REMEDIATE, "true")));
        create(fd);
        pod("lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        rest.answer("http://lineflow-rest.flink.svc:8081", duplicatedJob());
        for (int i = 0; i < 4; i++) {
            pass();
        }
        assertThat(podNames()).containsExactly("lineflow-taskmanager-1-1");
    }

    @Test
    void theControllerPassesOverWhatItsInformerSees() throws Exception {
        create(flinkDeployment(NS, "lineflow"));
        create(flinkDeployment("elsewhere", "ignored"));
        Configuration conf = ReconcilerOptions.fromMap(
                Map.of(ReconcilerOptions.NAMESPACES.key(), NS, ReconcilerOptions.INTERVAL.key(), "1 h"));
        try (ReconcilerController controller = new ReconcilerController(client, conf, reconciler, clock)) {
            controller.startInformers();
            long deadline = System.currentTimeMillis() + 10_000;
            while (!controller.ready() && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertThat(controller.ready()).isTrue();
            controller.passSafely();
            assertThat(rest.calls.get()).isEqualTo(1);
            assertThat(controller.live()).isTrue();
        }
        reconciler = reconciler(Map.of());
    }

    /** The deployment's health summary, as the reconciler wrote it into its ConfigMap. */
    private String summary() {
        return client.configMaps()
                .inNamespace(NS)
                .withName("lineflow-lineflow-health")
                .get()
                .getData()
                .get(SummaryPublisher.DATA_KEY);
    }
}
