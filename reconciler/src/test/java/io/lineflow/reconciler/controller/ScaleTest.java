package io.lineflow.reconciler.controller;

import static io.lineflow.reconciler.TestUtils.NOW;
import static io.lineflow.reconciler.TestUtils.checkpoints;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.TestingClock;
import io.lineflow.reconciler.act.EventPublisher;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.act.Remediator;
import io.lineflow.reconciler.act.SummaryPublisher;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.HistoryStore;
import io.lineflow.reconciler.observe.TestingFlinkRestClient;
import io.lineflow.reconciler.observe.TestingKafkaObserver;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Measures one pass over 100 FlinkDeployments against the mock API server (time and heap). */
@EnableKubernetesMockClient(crud = true)
class ScaleTest {

    KubernetesClient client;

    @Test
    void onePassOverHundredDeploymentsJudgesEveryOneAndReportsItsTime() throws Exception {
        TestingClock clock = new TestingClock(NOW);
        Configuration conf = ReconcilerOptions.fromMap(Map.of());
        for (int i = 0; i < 100; i++) {
            FlinkDeployment fd = TestUtils.flinkDeployment("ns" + (i % 5), String.format("job-%03d", i));
            if (i % 10 == 0) {
                fd.getSpec().getFlinkConfiguration().remove("state.savepoints.dir"); // one finding on every tenth
            }
            client.resource(fd).create();
        }
        TestingFlinkRestClient rest = new TestingFlinkRestClient()
                .answerAll(url -> TestUtils.flink(TestUtils.job(
                        JobStatus.RUNNING,
                        0,
                        checkpoints(clock.instant().minusSeconds(20), 50, 0),
                        TestUtils.source(100))));
        EventPublisher events = new EventPublisher(client, conf, clock);
        Metrics metrics = new Metrics(conf, clock);
        try (Reconciler reconciler = new Reconciler(
                conf,
                new DeploymentObserver(
                        conf, rest, new TestingKafkaObserver(clock, 100, 500, Duration.ofDays(7)), clock),
                null,
                events,
                new SummaryPublisher(client, conf, clock),
                new Remediator(client, events, conf, clock),
                metrics,
                new HistoryStore(conf.get(ReconcilerOptions.HISTORY_RETENTION)),
                clock)) {
            List<FlinkDeployment> all = client.resources(FlinkDeployment.class)
                    .inAnyNamespace()
                    .list()
                    .getItems();

            System.gc();
            long heapBefore = usedHeap();
            long t0 = System.nanoTime();
            Map<DeploymentKey, HealthResult> first = reconciler.pass(all);
            double firstSeconds = (System.nanoTime() - t0) / 1e9;
            long heapAfterFirst = usedHeap();

            clock.advance(Duration.ofSeconds(30));
            long t1 = System.nanoTime();
            reconciler.pass(all);
            double steadySeconds = (System.nanoTime() - t1) / 1e9;
            System.gc();
            long retained = usedHeap() - heapBefore;

            String report = String.format(
                    "100 FlinkDeployments, mock API server (CRUD), fake Flink REST/Kafka:%n"
                            + "  first pass (writes 100 summaries + 10 events): %.3f s%n"
                            + "  steady pass (nothing changed, no writes):      %.3f s%n"
                            + "  heap growth during first pass (no GC):         %.1f MiB%n"
                            + "  heap retained after two passes (after GC):     %.1f MiB%n"
                            + "  events written: %d, metrics exposition: %d bytes%n",
                    firstSeconds,
                    steadySeconds,
                    (heapAfterFirst - heapBefore) / 1048576.0,
                    retained / 1048576.0,
                    events.written(),
                    metrics.render().length());
            System.out.print(report);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target/scale-report.txt"), report);

            assertThat(first).hasSize(100);
            assertThat(first.values().stream().filter(r -> !r.findings().isEmpty()))
                    .hasSize(10);
            assertThat(events.written()).isEqualTo(10);
        }
    }

    private static long usedHeap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
