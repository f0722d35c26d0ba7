package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Services;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Each fault of the Kubernetes drill struck against a fake kubectl that records every command and
 * answers as the operator would: a patched or applied spec is reconciled, deployed and running.
 */
class KubernetesBackendTest {
    private static final String KUBECTL = "kubectl";

    @TempDir
    Path work;

    /** kubectl's answers from one FlinkDeployment's status, changed by the commands as the operator would. */
    private static final class FakeCluster implements Kubectl.Runner {
        final List<String> commands = new ArrayList<>();
        String lifecycle = "STABLE";
        String jobState = "RUNNING";
        String reconciledSpec = "{}";

        @Override
        public String run(List<String> command, Duration limit) {
            assertThat(command.subList(0, 4)).containsExactly(KUBECTL, "-n", command.get(2), "--request-timeout=30s");
            String line = command.get(2) + ": " + String.join(" ", command.subList(4, command.size()));
            commands.add(line);
            if (line.contains(" get ")) {
                return get(line);
            }
            if (line.contains("patch flinkdeployment/lineflow")) {
                String state = line.contains("suspended") ? "suspended" : "running";
                reconciledSpec = "{\"job\":{\"state\":\"" + state + "\"}}";
                lifecycle = state.equals("suspended") ? "SUSPENDED" : "STABLE";
                jobState = state.equals("suspended") ? "FINISHED" : "RUNNING";
            } else if (line.contains(" apply -k ")) {
                reconciledSpec = appliedSpec(Path.of(command.get(command.size() - 1)));
                return "configmap/lineflow unchanged\nflinkdeployment.flink.apache.org/lineflow configured\n";
            }
            return "done: " + line + "\n";
        }

        private String get(String line) {
            if (line.contains("{.status.lifecycleState}")) {
                return lifecycle;
            }
            if (line.contains("{.status.jobStatus.state}")) {
                return jobState;
            }
            if (line.contains("lastReconciledSpec")) {
                return reconciledSpec;
            }
            if (line.contains("{.items[0].metadata.name}")) {
                return "lineflow-jm-0";
            }
            if (line.contains("deletionTimestamp")) {
                // The old pod terminating, the new one Ready.
                return "2026-11-01T00:00:00Z|True\n|True\n";
            }
            throw new AssertionError("unexpected " + line);
        }

        /** The spec the operator reconciles from the overlay's patches, as JSON like the operator's. */
        private static String appliedSpec(Path overlay) {
            try {
                String k = Files.readString(overlay.resolve("kustomization.yaml"));
                return "{\"image\":\"" + patched(k, "image") + "\",\"job\":{\"parallelism\":"
                        + patched(k, "job/parallelism") + ",\"upgradeMode\":\"" + patched(k, "job/upgradeMode")
                        + "\"}}";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String patched(String kustomization, String path) {
            Matcher m = Pattern.compile("path: /spec/" + path + "\\n\\s*value: (\\S+)")
                    .matcher(kustomization);
            assertThat(m.find()).as(path + " patched").isTrue();
            return m.group(1);
        }
    }

    /** The host's services, recording what they were asked. */
    private static final class RecordingServices implements Services {
        final List<String> actions = new ArrayList<>();

        @Override
        public void stopPostgres() {
            actions.add("postgres/stop");
        }

        @Override
        public void startPostgres() {
            actions.add("postgres/start");
        }

        @Override
        public void restartKafka() {
            actions.add("kafka/restart");
        }
    }

    private final FakeCluster cluster = new FakeCluster();
    private final RecordingServices services = new RecordingServices();
    private final List<String> log = new ArrayList<>();

    private KubernetesBackend backend() {
        return new KubernetesBackend(
                new Kubectl(KUBECTL, "lineflow", cluster),
                new Kubectl(KUBECTL, "operator", cluster),
                services,
                () -> {
                    throw new AssertionError("no table in this test");
                },
                new Overlays(work, work.resolve("e2e")),
                "echo",
                new KubernetesBackend.Holds(Duration.ofMillis(10), Duration.ofMillis(10)),
                log::add);
    }

    @Test
    void jmPodDeleteDeletesTheJobManagerPodWithoutWaiting() throws Exception {
        assertThat(backend().strike(Fault.JM_POD_DELETE)).isNull();
        assertThat(cluster.commands)
                .containsExactly("lineflow: delete pod -l app=lineflow,component=jobmanager --wait=false");
    }

    @Test
    void jmKillKillsTheFlinkProcessInTheJobManagerContainer() throws Exception {
        assertThat(backend().strike(Fault.JM_KILL)).isNull();
        assertThat(cluster.commands)
                .containsExactly(
                        "lineflow: get pod -l app=lineflow,component=jobmanager -o jsonpath={.items[0].metadata.name}",
                        "lineflow: exec lineflow-jm-0 -c flink-main-container -- bash -c kill 1");
    }

    @Test
    void tmPodKillForceDeletesTheTaskManagerPods() throws Exception {
        assertThat(backend().strike(Fault.TM_POD_KILL)).isNull();
        assertThat(cluster.commands)
                .containsExactly(
                        "lineflow: delete pod -l app=lineflow,component=taskmanager --grace-period=0 --force --wait=false");
    }

    @Test
    void operatorRestartDeletesTheOperatorsPodAndWaitsForTheNewOneReady() throws Exception {
        assertThat(backend().strike(Fault.OPERATOR_RESTART)).isNull();
        assertThat(cluster.commands).hasSize(2);
        assertThat(cluster.commands.get(0))
                .isEqualTo("operator: delete pod -l app.kubernetes.io/name=flink-kubernetes-operator --wait=false");
        assertThat(cluster.commands.get(1))
                .startsWith("operator: get pod -l app.kubernetes.io/name=flink-kubernetes-operator");
    }

    @Test
    void dbOutageAndKafkaRestartGoThroughTheHostsServices() throws Exception {
        KubernetesBackend backend = backend();
        assertThat(backend.strike(Fault.DB_OUTAGE)).isNull();
        assertThat(backend.strike(Fault.KAFKA_RESTART)).isNull();
        assertThat(services.actions).containsExactly("postgres/stop", "postgres/start", "kafka/restart");
        assertThat(cluster.commands).isEmpty();
    }

    @Test
    void suspendResumeReturnsWhenTheOperatorRunsTheResumedSpec() throws Exception {
        long before = System.currentTimeMillis();
        Long recoveredAt = backend().strike(Fault.SUSPEND_RESUME);
        assertThat(recoveredAt).isNotNull().isGreaterThanOrEqualTo(before);
        assertThat(cluster.commands)
                .filteredOn(c -> c.contains("patch"))
                .containsExactly(
                        "lineflow: patch flinkdeployment/lineflow --type merge -p {\"spec\":{\"job\":{\"state\":\"suspended\"}}}",
                        "lineflow: patch flinkdeployment/lineflow --type merge -p {\"spec\":{\"job\":{\"state\":\"running\"}}}");
    }

    @Test
    void upgradesApplyTheNewImageParallelismAndModeWithKustomize() throws Exception {
        KubernetesBackend backend = backend();
        assertThat(backend.strike(Fault.LAST_STATE_UPGRADE)).isNotNull();
        assertThat(cluster.reconciledSpec)
                .isEqualTo(
                        "{\"image\":\"lineflow-job:e2e-upgrade-1\",\"job\":{\"parallelism\":3,\"upgradeMode\":\"last-state\"}}");
        assertThat(backend.strike(Fault.SAVEPOINT_UPGRADE)).isNotNull();
        assertThat(cluster.reconciledSpec)
                .isEqualTo(
                        "{\"image\":\"lineflow-job:e2e-upgrade-2\",\"job\":{\"parallelism\":2,\"upgradeMode\":\"savepoint\"}}");
        Path overlay = work.resolve("overlays").resolve("savepoint-upgrade");
        assertThat(cluster.commands).contains("lineflow: apply -k " + overlay);
        assertThat(Files.readString(overlay.resolve("kustomization.yaml"))).contains("  - ../../e2e\n");
        assertThat(log).contains("  flinkdeployment.flink.apache.org/lineflow configured");
    }

    @Test
    void nodeRestartRunsTheClusterScript() throws Exception {
        assertThat(backend().strike(Fault.NODE_RESTART)).isNull();
        assertThat(log).containsExactly("  restart-node");
    }

    @Test
    void theControlLosesTheJobManagerAndTaskManagerTogetherWaitingForBoth() {
        backend().loseJobManagerAndTaskManager();
        assertThat(cluster.commands)
                .containsExactly(
                        "lineflow: delete pod -l app=lineflow,component in (jobmanager,taskmanager) --grace-period=1 --wait=true --timeout=80s");
    }

    @Test
    void theJobRunsWhenTheOperatorSaysRunningAndCannotSaySinceWhen() {
        assertThat(backend().job()).isEqualTo(new Backend.JobState(true, null));
        cluster.jobState = "RECONCILING";
        assertThat(backend().job()).isEqualTo(Backend.JobState.DOWN);
    }

    @Test
    void everyLocalOnlyFaultIsRefused() {
        for (Fault fault : Fault.values()) {
            if (!fault.offeredOn(Backend.Kind.KUBERNETES)) {
                assertThatThrownBy(() -> backend().strike(fault))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(fault.id);
            }
        }
    }
}
