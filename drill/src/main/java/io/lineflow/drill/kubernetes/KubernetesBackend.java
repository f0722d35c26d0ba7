package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.ClusterPods.JM;
import static io.lineflow.drill.kubernetes.Kubectl.selector;
import static io.lineflow.drill.kubernetes.OperatorPods.OPERATOR;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Services;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.testing.Commands;

import io.fabric8.kubernetes.api.model.Pod;
import org.apache.flink.api.common.JobStatus;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The Kubernetes drill's backend: the job the operator runs, faults struck through the cluster
 * (pods deleted, a container's process killed, the operator's pod deleted, specs patched or
 * applied with kustomize, the node restarted) and through the host's services (PostgreSQL,
 * Kafka, the S3 server). The faults that roll out a new spec go through {@link ReleaseFlows}.
 */
final class KubernetesBackend implements Backend {
    /**
     * How long a fault holds before it is undone.
     *
     * @param dbOutage PostgreSQL down in {@link Fault#DB_OUTAGE}
     * @param s3Outage the S3 server down in {@link Fault#S3_OUTAGE}: longer than the checkpoint
     *     timeout (60 s, prod's): a frozen server answers nothing, so a checkpoint waiting on it
     *     fails only by timing out (a 30 s freeze left every checkpoint complete, only late)
     * @param suspension the job suspended in {@link Fault#SUSPEND_RESUME}
     */
    record Holds(Duration dbOutage, Duration s3Outage, Duration suspension) {
        static final Holds DRILL = new Holds(Duration.ofSeconds(15), Duration.ofSeconds(75), Duration.ofSeconds(10));
    }

    private static final Duration POLL = Duration.ofSeconds(2);

    private final FlinkCluster flink;
    private final Kubectl k8s;
    private final Kubectl operator;
    private final Services services;
    private final TableCheck.Database db;
    private final ReleaseFlows releases;
    private final String clusterScript;
    private final String containerdSocket;
    private final Holds holds;
    /** The command that upgrades the operator (operator-upgrade); empty when the run gives none. */
    private final List<String> operatorUpgrade;

    private final Consumer<String> log;

    KubernetesBackend(
            FlinkCluster flink,
            Kubectl k8s,
            Kubectl operator,
            Services services,
            TableCheck.Database db,
            Overlays overlays,
            String clusterScript,
            String containerdSocket,
            Holds holds,
            List<String> operatorUpgrade,
            Consumer<String> log) {
        this.flink = flink;
        this.k8s = k8s;
        this.operator = operator;
        this.services = services;
        this.db = db;
        this.releases = new ReleaseFlows(flink, k8s, overlays, holds.suspension(), log);
        this.clusterScript = clusterScript;
        this.containerdSocket = containerdSocket;
        this.holds = holds;
        this.operatorUpgrade = List.copyOf(operatorUpgrade);
        this.log = log;
    }

    /**
     * RUNNING as the operator reports it ({@code status.jobStatus.state}), since when the leading
     * JobManager says the job runs (null when it does not answer).
     */
    @Override
    public RunState job() {
        return flink.deployment().jobState().orElse(null) == JobStatus.RUNNING
                ? new RunState(true, flink.rest().runningSince().orElse(null))
                : RunState.DOWN;
    }

    @Override
    public TableCheck.Database database() {
        return db;
    }

    @Override
    public Long strike(Fault fault) throws Exception {
        return switch (fault) {
            case JM_POD_DELETE -> {
                log.accept("  "
                        + k8s.run("delete", "pod", "-l", selector(JM), "--wait=false")
                                .trim());
                yield null;
            }
            case JM_LEADER_DELETE -> {
                Pod leader = leader();
                log.accept("  "
                        + k8s.run("delete", "pod", leader.getMetadata().getName(), "--wait=false")
                                .trim() + " (the leader; the standby is "
                        + standby(leader).getMetadata().getName() + ")");
                yield null;
            }
            case JM_LEADER_KILL -> {
                Pod leader = leader();
                String container = ClusterPods.flinkContainerId(leader);
                Commands.run(
                        Path.of("."),
                        Duration.ofSeconds(30),
                        List.of(
                                "ctr",
                                "--address",
                                containerdSocket,
                                "-n",
                                "k8s.io",
                                "tasks",
                                "kill",
                                "--signal",
                                "SIGKILL",
                                container));
                log.accept("  SIGKILL to the JobManager JVM of "
                        + leader.getMetadata().getName() + " (the leader; the standby is "
                        + standby(leader).getMetadata().getName() + ")");
                yield null;
            }
            case JM_STANDBY_DELETE -> {
                Pod standby = standby(leader());
                log.accept("  "
                        + k8s.run("delete", "pod", standby.getMetadata().getName(), "--wait=false")
                                .trim() + " (the standby)");
                yield null;
            }
            case JM_KILL -> {
                // The leader's: the standby's JVM stopping would show nothing.
                String pod = leader().getMetadata().getName();
                k8s.run("exec", pod, "-c", "flink-main-container", "--", "bash", "-c", "kill 1");
                log.accept("  kill 1 in pod " + pod + "'s Flink container (the leader)");
                yield null;
            }
            case TM_POD_KILL -> {
                // One that runs tasks: killing the spare would show nothing.
                String pod = flink.rest().busyTaskManagers().stream()
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException(
                                "no TaskManager runs tasks, as the leading JobManager's REST API lists them"));
                log.accept("  "
                        + k8s.run("delete", "pod", pod, "--grace-period=0", "--force", "--wait=false")
                                .trim());
                yield null;
            }
            case OPERATOR_RESTART -> {
                restartOperator();
                yield null;
            }
            case OPERATOR_UPGRADE -> {
                upgradeOperator();
                yield null;
            }
            case DB_OUTAGE -> {
                services.dbOutage(holds.dbOutage(), log);
                yield null;
            }
            case KAFKA_RESTART -> {
                services.kafkaRestart(log);
                yield null;
            }
            case S3_OUTAGE -> {
                services.s3Outage(holds.s3Outage(), log);
                yield null;
            }
            case SUSPEND_RESUME -> releases.suspendAndResume();
            case MAJOR_UPGRADE -> releases.majorUpgrade();
            case MAJOR_ROLLBACK -> releases.majorRollback();
            case LAST_STATE_UPGRADE -> releases.upgrade(ReleaseFlows.Release.LAST_STATE);
            case SAVEPOINT_UPGRADE -> releases.upgrade(ReleaseFlows.Release.SAVEPOINT);
            case NODE_RESTART -> {
                log.accept("  "
                        + Commands.run(Path.of("."), Duration.ofMinutes(10), List.of(clusterScript, "restart-node"))
                                .trim());
                yield null;
            }
            case TM_KILL,
                    JM_FAILOVER,
                    FULL_RESTART,
                    UPGRADE,
                    PG_KILL,
                    KAFKA_KILL,
                    PARTITION_DB,
                    PARTITION_KAFKA,
                    PARTITION_JM ->
                throw new IllegalArgumentException(fault.id + " is not a fault of the Kubernetes drill");
        };
    }

    /**
     * The JobManager and the TaskManager lost together, as with a node: what the no-checkpoints
     * control does. A TaskManager left running reads the input that follows and writes its
     * windows before it notices its JobManager is gone, and hides the loss: a forced delete
     * returns before the kubelet has stopped the container, and a CI run passed the control that
     * way. A delete that waits returns once the kubelet has reported the containers stopped.
     */
    void loseJobManagerAndTaskManager() {
        long asked = System.currentTimeMillis();
        log.accept("  "
                + k8s.run(
                                "delete",
                                "pod",
                                "-l",
                                "app=lineflow,component in (jobmanager,taskmanager)",
                                "--grace-period=1",
                                "--wait=true",
                                "--timeout=80s")
                        .trim());
        log.accept("  both gone after " + DrillReport.seconds(System.currentTimeMillis() - asked)
                + "; the rest of the input follows");
    }

    /** The leading JobManager's pod; fails when Kubernetes HA names none that runs. */
    private Pod leader() {
        return flink.pods()
                .leader()
                .orElseThrow(() -> new IllegalStateException("no JobManager pod is the leader in ConfigMap "
                        + ClusterPods.HA_CONFIG_MAP + " (leader election under way, or HA off?)"));
    }

    /** A JobManager pod that is not {@code leader}; fails when there is none (one JobManager only?). */
    private Pod standby(Pod leader) {
        return flink.pods().jobManagers().stream()
                .filter(p ->
                        !p.getMetadata().getUid().equals(leader.getMetadata().getUid()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no standby JobManager: the leader "
                        + leader.getMetadata().getName() + " is the only one (spec.jobManager.replicas 1?)"));
    }

    private void restartOperator() {
        log.accept("  "
                + operator.run("delete", "pod", "-l", selector(OPERATOR), "--wait=false")
                        .trim());
        Await.orFail(Duration.ofMinutes(3), POLL, "the operator's new pod Ready", flink.operator()::ready);
    }

    private void upgradeOperator() {
        if (operatorUpgrade.isEmpty()) {
            throw new IllegalStateException(
                    "operator-upgrade: this run has no upgrade command (KubernetesE2e verify --operator-upgrade)");
        }
        String before = flink.operator().images();
        log.accept("  the operator runs " + before + "; upgrading: " + String.join(" ", operatorUpgrade));
        long began = System.currentTimeMillis();
        Commands.run(Path.of("."), Duration.ofMinutes(10), operatorUpgrade);
        Await.orFail(
                Duration.ofMinutes(3),
                POLL,
                "the upgraded operator's pod Ready and the old one gone",
                () -> flink.operator().ready() && !flink.operator().images().contains(before));
        log.accept("  the operator runs " + flink.operator().images() + ", "
                + DrillReport.seconds(System.currentTimeMillis() - began) + " after the upgrade began");
    }
}
