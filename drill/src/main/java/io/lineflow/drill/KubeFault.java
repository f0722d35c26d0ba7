package io.lineflow.drill;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the Kubernetes drill does to the job deployed by the operator, in the order {@code all}
 * runs them: the healthy scenarios on one long-running deployment, then the negative controls,
 * each on a fresh deployment with a pitfall applied on purpose.
 */
enum KubeFault {
    /** Nothing: the input, then the table (what {@code make e2e} checks). */
    STEADY("steady", false),
    /** The JobManager pod deleted: its Deployment starts a new one, Kubernetes HA restores the job. */
    JM_POD_DELETE("jm-pod-delete", false),
    /** {@code kill 1} in the JobManager container: the kubelet restarts it in the same pod. */
    JM_KILL("jm-kill", false),
    /** A TaskManager pod force-deleted: the JobManager asks for a new one and restores the job. */
    TM_POD_KILL("tm-pod-kill", false),
    /** The operator's pod deleted mid-run: nothing about the job may change. */
    OPERATOR_RESTART("operator-restart", false),
    /** PostgreSQL on the host down for 15 s, then back on the same data. */
    DB_OUTAGE("db-outage", false),
    /** The Kafka broker on the host stopped and started on the same data. */
    KAFKA_RESTART("kafka-restart", false),
    /** {@code job.state: suspended}, then {@code running}: last-state suspend and resume. */
    SUSPEND_RESUME("suspend-resume", false),
    /** A new image tag and parallelism 3, applied with kustomize as a GitOps sync would; last-state. */
    LAST_STATE_UPGRADE("last-state-upgrade", false),
    /** Another image tag and parallelism 2 with {@code upgradeMode: savepoint}. */
    SAVEPOINT_UPGRADE("savepoint-upgrade", false),
    /** The node's kubelet and containerd stopped and started again; the pods come back. */
    NODE_RESTART("node-restart", false),
    /** Control: a fresh deployment with an additive sink, then a TaskManager pod killed. */
    CONTROL_ADDITIVE_SINK("control:additive-sink", true),
    /**
     * Control: a fresh deployment with checkpointing off (the seed pitfall the reconciler must
     * report) reading from the latest offset, then the JobManager and TaskManager pods deleted.
     */
    CONTROL_NO_CHECKPOINTS("control:no-checkpoints", true);

    final String id;
    final boolean control;

    KubeFault(String id, boolean control) {
        this.id = id;
        this.control = control;
    }

    /**
     * The scenarios of a comma-separated list: ids, {@code all} (every one, controls last) or
     * {@code faults} (every one but the controls). Order is kept; controls always run last, since
     * they leave the deployment broken on purpose.
     */
    static List<KubeFault> parse(String list) {
        List<KubeFault> out = new ArrayList<>();
        for (String id : list.split(",")) {
            String t = id.trim();
            if (t.equals("all")) {
                out.addAll(Arrays.asList(values()));
            } else if (t.equals("faults")) {
                Arrays.stream(values()).filter(f -> !f.control).forEach(out::add);
            } else {
                out.add(Arrays.stream(values())
                        .filter(f -> f.id.equals(t))
                        .findFirst()
                        .orElseThrow(
                                () -> new IllegalArgumentException("unknown scenario '" + t + "'; known: all, faults, "
                                        + Arrays.stream(values()).map(f -> f.id).collect(Collectors.joining(", ")))));
            }
        }
        out.sort((a, b) -> Boolean.compare(a.control, b.control));
        return out;
    }
}
