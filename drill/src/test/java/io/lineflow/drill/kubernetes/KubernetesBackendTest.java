package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Services;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Each fault of the Kubernetes drill struck without the drill: the FlinkDeployment and the pods
 * in fabric8's mock API server, a {@link FakeOperator} reconciling the spec as the operator would,
 * and a fake kubectl that records the commands a person would type and carries them out on the
 * mock server.
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesBackendTest {
    private static final String NS = "lineflow";
    private static final String OPERATOR_NS = "operator";

    KubernetesClient client;

    @TempDir
    Path work;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A kustomization the drill wrote: JSON under a YAML comment line. */
    private static JsonNode kustomization(String text) throws IOException {
        return JsonMapper.builder()
                .enable(JsonReadFeature.ALLOW_YAML_COMMENTS)
                .build()
                .readTree(text);
    }

    /** kubectl as the drill calls it: each command line recorded, and carried out on the mock server. */
    private final class FakeKubectl implements Kubectl.Runner {
        final List<String> commands = new ArrayList<>();

        @Override
        public synchronized String run(List<String> command, Duration limit) {
            assertThat(command.subList(0, 4)).containsExactly("kubectl", "-n", command.get(2), "--request-timeout=30s");
            List<String> args = command.subList(4, command.size());
            commands.add(command.get(2) + ": " + String.join(" ", args));
            if (args.get(0).equals("apply")) {
                apply(Path.of(args.get(2)));
                return "configmap/lineflow unchanged\nflinkdeployment.flink.apache.org/lineflow configured\n";
            }
            if (args.subList(0, 2).equals(List.of("delete", "pod"))
                    && command.get(2).equals(OPERATOR_NS)) {
                // The operator's Deployment replaces its pod with a new one, Ready.
                client.pods().inNamespace(OPERATOR_NS).delete();
                client.resource(FakeOperator.pod(
                                OPERATOR_NS, "operator-2", OperatorPods.OPERATOR, "operator:1.10.0", true))
                        .create();
            }
            return "done\n";
        }

        /** The overlay's patches on the FlinkDeployment, as kustomize and the API server would apply them. */
        private void apply(Path overlay) {
            try {
                String k = Files.readString(overlay.resolve("kustomization.yaml"));
                client.resources(FlinkDeployment.class)
                        .inNamespace(NS)
                        .withName(FlinkCluster.NAME)
                        .edit(fd -> {
                            fd.getSpec().setImage(patched(k, "image"));
                            fd.getSpec().getJob().setParallelism(Integer.parseInt(patched(k, "job/parallelism")));
                            fd.getSpec()
                                    .getJob()
                                    .setUpgradeMode(UpgradeMode.valueOf(patched(k, "job/upgradeMode")
                                            .toUpperCase()
                                            .replace('-', '_')));
                            return fd;
                        });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The value the kustomization's JSON patch sets at {@code /spec/<path>}. */
        private static String patched(String kustomization, String path) {
            try {
                JsonNode ops = JSON.readTree(kustomization(kustomization)
                        .get("patches")
                        .get(0)
                        .get("patch")
                        .asText());
                for (JsonNode op : ops) {
                    if (op.get("path").asText().equals("/spec/" + path)) {
                        assertThat(op.get("op").asText()).isEqualTo("replace");
                        return op.get("value").asText();
                    }
                }
                throw new AssertionError(path + " not patched: " + ops);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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

        @Override
        public void stopS3() {
            actions.add("s3/stop");
        }

        @Override
        public void startS3() {
            actions.add("s3/start");
        }
    }

    private final FakeKubectl kubectl = new FakeKubectl();
    private final RecordingServices services = new RecordingServices();
    private final List<String> log = new ArrayList<>();
    private FakeOperator operator;
    private TestingHttpServer jobManagerRest;
    private KubernetesBackend backend;

    @BeforeEach
    void deployed() throws IOException {
        jobManagerRest = new TestingHttpServer();
        operator = FakeOperator.deploy(client, NS);
        client.resource(FakeOperator.pod(OPERATOR_NS, "operator-1", OperatorPods.OPERATOR, "operator:1.10.0", true))
                .create();
        backend = new KubernetesBackend(
                new FlinkCluster(client, NS, OPERATOR_NS, ip -> jobManagerRest.uri()),
                new Kubectl("kubectl", NS, kubectl),
                new Kubectl("kubectl", OPERATOR_NS, kubectl),
                services,
                () -> {
                    throw new AssertionError("no table in this test");
                },
                new Overlays(work, work.resolve("e2e")),
                "echo",
                "/run/containerd/containerd.sock",
                new KubernetesBackend.Holds(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(10)),
                List.of(),
                log::add);
    }

    @AfterEach
    void stopOperator() {
        jobManagerRest.close();
        operator.close();
    }

    @Test
    void jmPodDeleteDeletesTheJobManagerPodWithoutWaiting() throws Exception {
        assertThat(backend.strike(Fault.JM_POD_DELETE)).isNull();
        assertThat(kubectl.commands)
                .containsExactly("lineflow: delete pod -l app=lineflow,component=jobmanager --wait=false");
    }

    /** Two JobManagers, the second leading as Kubernetes HA records it. */
    @Test
    void jmLeaderDeleteDeletesThePodKubernetesHaNamesTheLeader() throws Exception {
        operator.secondJobManagerLeading();
        assertThat(new ClusterPods(client, NS, FlinkCluster.NAME).leaderHolder())
                .isEqualTo("6c1b");
        assertThat(backend.strike(Fault.JM_LEADER_DELETE)).isNull();
        assertThat(kubectl.commands).containsExactly("lineflow: delete pod lineflow-jobmanager-2 --wait=false");
    }

    @Test
    void jmStandbyDeleteDeletesThePodThatDoesNotLead() throws Exception {
        operator.secondJobManagerLeading();
        assertThat(backend.strike(Fault.JM_STANDBY_DELETE)).isNull();
        assertThat(kubectl.commands).containsExactly("lineflow: delete pod lineflow-jobmanager-1 --wait=false");
    }

    @Test
    void leaderFaultsRefuseWithoutALeaderOrAStandby() {
        assertThatThrownBy(() -> backend.strike(Fault.JM_LEADER_DELETE))
                .hasMessageContaining("no JobManager pod is the leader in ConfigMap lineflow-cluster-config-map");
        operator.secondJobManagerLeading();
        client.pods().inNamespace(NS).withName("lineflow-jobmanager-1").delete();
        assertThatThrownBy(() -> backend.strike(Fault.JM_STANDBY_DELETE))
                .hasMessageContaining("no standby JobManager: the leader lineflow-jobmanager-2 is the only one");
        assertThat(kubectl.commands).isEmpty();
    }

    @Test
    void jmKillKillsTheFlinkProcessInTheLeadingJobManagersContainer() throws Exception {
        operator.secondJobManagerLeading();
        assertThat(backend.strike(Fault.JM_KILL)).isNull();
        assertThat(kubectl.commands)
                .containsExactly("lineflow: exec lineflow-jobmanager-2 -c flink-main-container -- bash -c kill 1");
    }

    @Test
    void tmPodKillForceDeletesATaskManagerPodThatRunsTasksNotTheSpare() throws Exception {
        operator.secondJobManagerLeading();
        jobManagerRest.on(
                "/taskmanagers",
                "{\"taskmanagers\":[" + LeaderRestTest.taskManager("lineflow-taskmanager-1-3", 2) + ","
                        + LeaderRestTest.taskManager("lineflow-taskmanager-1-4", 0) + "]}");
        assertThat(backend.strike(Fault.TM_POD_KILL)).isNull();
        assertThat(kubectl.commands)
                .containsExactly("lineflow: delete pod lineflow-taskmanager-1-4 --grace-period=0 --force --wait=false");
    }

    @Test
    void tmPodKillRefusesWhenNoTaskManagerRunsTasks() {
        operator.secondJobManagerLeading();
        jobManagerRest.on("/taskmanagers", LeaderRestTest.taskManagers("lineflow-taskmanager-1-3", 2));
        assertThatThrownBy(() -> backend.strike(Fault.TM_POD_KILL)).hasMessageContaining("no TaskManager runs tasks");
        assertThat(kubectl.commands).isEmpty();
    }

    @Test
    void operatorRestartDeletesTheOperatorsPodAndReturnsWithTheNewOneReady() throws Exception {
        assertThat(backend.strike(Fault.OPERATOR_RESTART)).isNull();
        assertThat(kubectl.commands)
                .containsExactly(
                        "operator: delete pod -l app.kubernetes.io/name=flink-kubernetes-operator --wait=false");
        assertThat(client.pods().inNamespace(OPERATOR_NS).list().getItems())
                .extracting(p -> p.getMetadata().getName())
                .containsExactly("operator-2");
    }

    @Test
    void dbOutageAndKafkaRestartGoThroughTheHostsServices() throws Exception {
        assertThat(backend.strike(Fault.DB_OUTAGE)).isNull();
        assertThat(backend.strike(Fault.KAFKA_RESTART)).isNull();
        assertThat(services.actions).containsExactly("postgres/stop", "postgres/start", "kafka/restart");
        assertThat(kubectl.commands).isEmpty();
    }

    @Test
    void s3OutageStopsTheHostsS3ServerForItsHoldThenStartsItAgain() throws Exception {
        long before = System.nanoTime();
        assertThat(backend.strike(Fault.S3_OUTAGE)).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(20));
        assertThat(services.actions).containsExactly("s3/stop", "s3/start");
        assertThat(log).containsExactly("  S3 server stopped for 0 s", "  S3 server back");
        assertThat(kubectl.commands).isEmpty();
    }

    @Test
    void suspendResumeSuspendsThenReturnsWhenTheOperatorRunsTheResumedSpec() throws Exception {
        long before = System.currentTimeMillis();
        Long recoveredAt = backend.strike(Fault.SUSPEND_RESUME);
        assertThat(recoveredAt).isNotNull().isGreaterThanOrEqualTo(before);
        assertThat(operator.reconciledJobStates()).containsExactly(JobState.SUSPENDED, JobState.RUNNING);
        assertThat(kubectl.commands)
                .as("the spec is patched through the API, not kubectl")
                .isEmpty();
        assertThat(log)
                .as("how long each half took")
                .satisfiesExactly(
                        l -> assertThat(l).matches("  suspended \\d+\\.\\d s after the patch; resuming in 0 s"),
                        l -> assertThat(l).matches("  deployed and RUNNING \\d+\\.\\d s after the resume patch"));
    }

    @Test
    void upgradesApplyTheNewImageParallelismAndModeWithKustomizeAndWaitForTheOperator() throws Exception {
        assertThat(backend.strike(Fault.LAST_STATE_UPGRADE)).isNotNull();
        FlinkDeployment fd = operator.deployment();
        assertThat(fd.getStatus().getReconciliationStatus().deserializeLastReconciledSpec())
                .satisfies(s -> assertThat(s.getImage()).isEqualTo("lineflow-job:e2e-upgrade-1"))
                .satisfies(s -> assertThat(s.getJob().getParallelism()).isEqualTo(3))
                .satisfies(s -> assertThat(s.getJob().getUpgradeMode()).isEqualTo(UpgradeMode.LAST_STATE));

        assertThat(backend.strike(Fault.SAVEPOINT_UPGRADE)).isNotNull();
        assertThat(operator.deployment().getStatus().getReconciliationStatus().deserializeLastReconciledSpec())
                .satisfies(s -> assertThat(s.getImage()).isEqualTo("lineflow-job:e2e-upgrade-2"))
                .satisfies(s -> assertThat(s.getJob().getParallelism()).isEqualTo(2))
                .satisfies(s -> assertThat(s.getJob().getUpgradeMode()).isEqualTo(UpgradeMode.SAVEPOINT));
        Path overlay = work.resolve("overlays").resolve("savepoint-upgrade");
        assertThat(kubectl.commands)
                .containsExactly(
                        "lineflow: apply -k " + work.resolve("overlays").resolve("last-state-upgrade"),
                        "lineflow: apply -k " + overlay);
        assertThat(kustomization(Files.readString(overlay.resolve("kustomization.yaml")))
                        .get("resources")
                        .toString())
                .isEqualTo("[\"../../e2e\"]");
        assertThat(log).contains("  flinkdeployment.flink.apache.org/lineflow configured");
    }

    @Test
    void nodeRestartRunsTheClusterScript() throws Exception {
        assertThat(backend.strike(Fault.NODE_RESTART)).isNull();
        assertThat(log).containsExactly("  restart-node");
    }

    @Test
    void theControlLosesTheJobManagerAndTaskManagerTogetherWaitingForBoth() {
        backend.loseJobManagerAndTaskManager();
        assertThat(kubectl.commands)
                .containsExactly(
                        "lineflow: delete pod -l app=lineflow,component in (jobmanager,taskmanager) --grace-period=1 --wait=true --timeout=80s");
    }

    @Test
    void theJobRunsWhenTheOperatorSaysRunningAndNobodyCanSaySinceWhen() {
        assertThat(backend.job()).isEqualTo(new Backend.RunState(true, null));
        operator.jobState(org.apache.flink.api.common.JobStatus.RESTARTING);
        assertThat(backend.job()).isEqualTo(Backend.RunState.DOWN);
        client.resources(FlinkDeployment.class).inNamespace(NS).delete();
        assertThat(backend.job()).isEqualTo(Backend.RunState.DOWN);
    }

    @Test
    void everyLocalOnlyFaultIsRefused() {
        for (Fault fault : Fault.values()) {
            if (!fault.offeredOn(Backend.Kind.KUBERNETES)) {
                assertThatThrownBy(() -> backend.strike(fault))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(fault.id);
            }
        }
    }
}
