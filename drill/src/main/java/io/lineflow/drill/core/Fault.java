package io.lineflow.drill.core;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What a drill does to the running job, whichever backend runs it. Each backend strikes a fault in
 * an exhaustive {@code switch} expression, so a fault added here does not compile until every
 * backend has decided what it does with it; {@link #offeredOn} says where a fault is offered.
 */
public enum Fault {
    /** kill -9 of a TaskManager; a replacement starts, as Kubernetes would restart the pod. */
    TM_KILL("tm-kill", Backend.Kind.LOCAL),
    /** kill -9 of the leading JobManager; the standby takes over through ZooKeeper HA. */
    JM_FAILOVER("jm-failover", Backend.Kind.LOCAL),
    /** Every Flink process and ZooKeeper killed; a fresh cluster restores the retained checkpoint. */
    FULL_RESTART("full-restart", Backend.Kind.LOCAL),
    /**
     * The operator upgraded under the running job the way its docs say (the new release's CRDs
     * first, then its chart), from the release the e2e run installed first; every later scenario
     * then runs on the new operator. First among the Kubernetes faults for that reason.
     */
    OPERATOR_UPGRADE("operator-upgrade", Backend.Kind.KUBERNETES),
    /** The JobManager pod deleted: its Deployment starts a new one, Kubernetes HA restores the job. */
    JM_POD_DELETE("jm-pod-delete", Backend.Kind.KUBERNETES),
    /**
     * The leading JobManager's pod deleted while a standby runs: the standby takes over, the
     * Deployment starts a new standby; afterwards no source may read its input twice.
     */
    JM_LEADER_DELETE("jm-leader-delete", Backend.Kind.KUBERNETES),
    /**
     * {@code kill -9} of the leading JobManager's JVM (through containerd): no leadership is
     * handed over, the standby waits for the lease to expire; the kubelet restarts the container.
     */
    JM_LEADER_KILL("jm-leader-kill", Backend.Kind.KUBERNETES),
    /** The standby JobManager's pod deleted: the job must not notice. */
    JM_STANDBY_DELETE("jm-standby-delete", Backend.Kind.KUBERNETES),
    /**
     * {@code kill 1} (SIGTERM) in the leading JobManager's container: its JVM shuts down and gives
     * up leadership; the kubelet restarts the container in the same pod.
     */
    JM_KILL("jm-kill", Backend.Kind.KUBERNETES),
    /** A TaskManager pod force-deleted: the JobManager asks for a new one and restores the job. */
    TM_POD_KILL("tm-pod-kill", Backend.Kind.KUBERNETES),
    /** The operator's pod deleted mid-run: nothing about the job may change. */
    OPERATOR_RESTART("operator-restart", Backend.Kind.KUBERNETES),
    /** PostgreSQL down for 15 s, then back on the same data. */
    DB_OUTAGE("db-outage", Backend.Kind.LOCAL, Backend.Kind.KUBERNETES),
    /** The Kafka broker stopped and started again on the same data. */
    KAFKA_RESTART("kafka-restart", Backend.Kind.LOCAL, Backend.Kind.KUBERNETES),
    /** The S3 server stopped past the checkpoint timeout and started again on the same data: checkpoints fail and recover. */
    S3_OUTAGE("s3-outage", Backend.Kind.KUBERNETES),
    /** Stop-with-savepoint, then a new submission restored from it at parallelism 4. */
    UPGRADE("upgrade", Backend.Kind.LOCAL),
    /**
     * Flink's major upgrade, from this build's line (1.20) to the next (2.2), restored from a
     * canonical savepoint: locally, stop-with-savepoint, every Flink process replaced by the next
     * line's and lineflow's jar for it submitted; on Kubernetes, the job image built for 2.2 with
     * {@code flinkVersion: v2_2} applied with kustomize, the operator's savepoint upgrade. Named
     * only: it needs the next line's build.
     */
    MAJOR_UPGRADE("major-upgrade", true, Backend.Kind.LOCAL, Backend.Kind.KUBERNETES),
    /**
     * Back from the next line to this one, from the savepoint kept before the major upgrade, once
     * the next line has completed a checkpoint; the replay from that savepoint's offsets rewrites
     * what the next line wrote. Locally the scenario makes the upgrade first; on Kubernetes it
     * rolls back the deployment's major upgrade, making it first if {@link #MAJOR_UPGRADE} did
     * not run before it, and redeploys this line's spec from the savepoint
     * ({@code initialSavepointPath}, {@code savepointRedeployNonce}). Named only.
     */
    MAJOR_ROLLBACK("major-rollback", true, Backend.Kind.LOCAL, Backend.Kind.KUBERNETES),
    /** {@code job.state: suspended}, then {@code running}: last-state suspend and resume. */
    SUSPEND_RESUME("suspend-resume", Backend.Kind.KUBERNETES),
    /** A new image tag and parallelism 3, applied with kustomize as a GitOps sync would; last-state. */
    LAST_STATE_UPGRADE("last-state-upgrade", Backend.Kind.KUBERNETES),
    /** Another image tag and parallelism 2 with {@code upgradeMode: savepoint}. */
    SAVEPOINT_UPGRADE("savepoint-upgrade", Backend.Kind.KUBERNETES),
    /** The node's kubelet and containerd stopped and started again; the pods come back. */
    NODE_RESTART("node-restart", Backend.Kind.KUBERNETES),
    /**
     * {@code kill -9} of PostgreSQL (the postmaster and every backend, as a crash) while a sink
     * batch is in flight, then PostgreSQL started again on the same data: crash recovery.
     */
    PG_KILL("pg-kill", true, Backend.Kind.LOCAL),
    /** {@code kill -9} of the Kafka broker, then a new broker on the same data: log recovery. */
    KAFKA_KILL("kafka-kill", true, Backend.Kind.LOCAL),
    /**
     * Every packet between the TaskManagers and PostgreSQL dropped (not refused) for longer than
     * the heartbeat timeout, then let through again.
     */
    PARTITION_DB("partition-db", true, Backend.Kind.LOCAL),
    /** As {@link #PARTITION_DB}, between the TaskManagers and the broker (the producer still reaches it). */
    PARTITION_KAFKA("partition-kafka", true, Backend.Kind.LOCAL),
    /** As {@link #PARTITION_DB}, between one TaskManager running tasks and the JobManagers. */
    PARTITION_JM("partition-jm", true, Backend.Kind.LOCAL);

    public final String id;
    /**
     * A fault the soak cycles through but the drill strikes only when named ({@code --faults
     * pg-kill}): its {@code all} stays the six it has always run.
     */
    public final boolean hard;

    private final List<Backend.Kind> on;

    Fault(String id, Backend.Kind... on) {
        this(id, false, on);
    }

    Fault(String id, boolean hard, Backend.Kind... on) {
        this.id = id;
        this.hard = hard;
        this.on = List.of(on);
    }

    /**
     * Whether the fault moves the cluster to another Flink line: struck only when named, as it
     * needs the next line's build, and never in the soak's cycle, which runs on one line.
     */
    public boolean changesFlinkLine() {
        return this == MAJOR_UPGRADE || this == MAJOR_ROLLBACK;
    }

    /** Whether the drill of {@code kind} offers this fault. */
    public boolean offeredOn(Backend.Kind kind) {
        return on.contains(kind);
    }

    /** The faults the drill of {@code kind} offers, in declaration order. */
    public static List<Fault> on(Backend.Kind kind) {
        return Arrays.stream(values()).filter(f -> f.offeredOn(kind)).toList();
    }

    /** What the drill of {@code kind} runs for {@code all}: its faults but the {@link #hard} ones. */
    public static List<Fault> drillDefaults(Backend.Kind kind) {
        return on(kind).stream().filter(f -> !f.hard).toList();
    }

    /** The fault {@code id} names among those of {@code kind}; the error lists the known ones. */
    public static Fault byId(Backend.Kind kind, String id) {
        return on(kind).stream()
                .filter(f -> f.id.equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + id + "'; known: "
                        + on(kind).stream().map(f -> f.id).collect(Collectors.joining(", "))
                        + ", all"));
    }
}
