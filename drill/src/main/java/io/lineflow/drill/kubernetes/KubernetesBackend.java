package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.Kubectl.FD;
import static io.lineflow.drill.kubernetes.Kubectl.JM;
import static io.lineflow.drill.kubernetes.Kubectl.TM;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Pause;
import io.lineflow.drill.core.Services;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.testing.Commands;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The Kubernetes drill's backend: the job the operator runs, faults struck through the cluster
 * (pods deleted, a container's process killed, the operator's pod deleted, specs patched or
 * applied with kustomize, the node restarted) and through the host's services.
 */
final class KubernetesBackend implements Backend {
    /**
     * How long a fault holds before it is undone.
     *
     * @param dbOutage PostgreSQL down in {@link Fault#DB_OUTAGE}
     * @param suspension the job suspended in {@link Fault#SUSPEND_RESUME}
     */
    record Holds(Duration dbOutage, Duration suspension) {
        static final Holds DRILL = new Holds(Duration.ofSeconds(15), Duration.ofSeconds(10));
    }

    private static final Duration POLL = Duration.ofSeconds(2);

    private final Kubectl k8s;
    private final Kubectl operator;
    private final Services services;
    private final TableCheck.Database db;
    private final Overlays overlays;
    private final String clusterScript;
    private final Holds holds;
    private final Consumer<String> log;

    KubernetesBackend(
            Kubectl k8s,
            Kubectl operator,
            Services services,
            TableCheck.Database db,
            Overlays overlays,
            String clusterScript,
            Holds holds,
            Consumer<String> log) {
        this.k8s = k8s;
        this.operator = operator;
        this.services = services;
        this.db = db;
        this.overlays = overlays;
        this.clusterScript = clusterScript;
        this.holds = holds;
        this.log = log;
    }

    /** RUNNING as the operator reports it ({@code status.jobStatus.state}); it does not say since when. */
    @Override
    public JobState job() {
        return "RUNNING".equals(k8s.jobState()) ? new JobState(true, null) : JobState.DOWN;
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
                        + k8s.run("delete", "pod", "-l", JM, "--wait=false").trim());
                yield null;
            }
            case JM_KILL -> {
                String pod = k8s.pod(JM);
                k8s.run("exec", pod, "-c", "flink-main-container", "--", "bash", "-c", "kill 1");
                log.accept("  kill 1 in pod " + pod + "'s Flink container");
                yield null;
            }
            case TM_POD_KILL -> {
                log.accept("  "
                        + k8s.run("delete", "pod", "-l", TM, "--grace-period=0", "--force", "--wait=false")
                                .trim());
                yield null;
            }
            case OPERATOR_RESTART -> {
                restartOperator();
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
            case SUSPEND_RESUME -> suspendAndResume();
            case LAST_STATE_UPGRADE -> upgrade("last-state-upgrade", "lineflow-job:e2e-upgrade-1", 3, "last-state");
            case SAVEPOINT_UPGRADE -> upgrade("savepoint-upgrade", "lineflow-job:e2e-upgrade-2", 2, "savepoint");
            case NODE_RESTART -> {
                log.accept("  "
                        + Commands.run(Path.of("."), Duration.ofMinutes(10), List.of(clusterScript, "restart-node"))
                                .trim());
                yield null;
            }
            case TM_KILL, JM_FAILOVER, FULL_RESTART, UPGRADE ->
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

    private void restartOperator() {
        String selector = "app.kubernetes.io/name=flink-kubernetes-operator";
        log.accept("  "
                + operator.run("delete", "pod", "-l", selector, "--wait=false").trim());
        // A line per pod: "<deletionTimestamp>|<Ready>"; the new pod has no deletion time.
        Await.orFail(
                Duration.ofMinutes(3),
                POLL,
                "the operator's new pod Ready",
                () -> operator.get(
                                "pod",
                                "-l",
                                selector,
                                "-o",
                                "jsonpath={range .items[*]}{.metadata.deletionTimestamp}|{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}")
                        .orElse("")
                        .lines()
                        .anyMatch("|True"::equals));
    }

    private long suspendAndResume() {
        k8s.run("patch", FD, "--type", "merge", "-p", "{\"spec\":{\"job\":{\"state\":\"suspended\"}}}");
        Await.orFail(
                Duration.ofMinutes(3),
                POLL,
                "lifecycle SUSPENDED",
                () -> "SUSPENDED".equals(k8s.fd("{.status.lifecycleState}")));
        log.accept("  suspended; resuming in " + holds.suspension().toSeconds() + " s");
        Pause.sleep(holds.suspension().toMillis());
        k8s.run("patch", FD, "--type", "merge", "-p", "{\"spec\":{\"job\":{\"state\":\"running\"}}}");
        return deployed("\"state\":\"running\"");
    }

    /**
     * The same overlay a user applies, with the image and parallelism of a new release; applied
     * with {@code kubectl apply -k}, as a GitOps sync would, and the operator upgrades.
     */
    private long upgrade(String name, String image, int parallelism, String upgradeMode) throws IOException {
        Path dir = overlays.write(
                name,
                List.of(
                        "- op: replace\n  path: /spec/image\n  value: " + image,
                        "- op: replace\n  path: /spec/job/parallelism\n  value: " + parallelism,
                        "- op: replace\n  path: /spec/job/upgradeMode\n  value: " + upgradeMode));
        log.accept("  " + Kubectl.changed(k8s.run("apply", "-k", dir.toString())));
        return deployed("\"image\":\"" + image + "\"");
    }

    /**
     * Waits until the operator has reconciled a spec containing {@code specPart} (it may take a
     * minute to start: it finishes what it is doing first), has deployed it and the job runs;
     * returns that moment.
     */
    private long deployed(String specPart) {
        Await.orFail(
                Duration.ofMinutes(10),
                POLL,
                "the operator to deploy the spec with " + specPart,
                () -> k8s.fd("{.status.reconciliationStatus.lastReconciledSpec}")
                                .contains(specPart)
                        && List.of("DEPLOYED", "STABLE").contains(k8s.fd("{.status.lifecycleState}"))
                        && "RUNNING".equals(k8s.jobState()));
        return System.currentTimeMillis();
    }
}
