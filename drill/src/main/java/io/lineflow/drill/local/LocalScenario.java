package io.lineflow.drill.local;

import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Scenario;

import java.util.List;

/**
 * A scenario of the local drill: a fault at a point of the input, on the real job, or a negative
 * control, the job or the fault's procedure broken on purpose.
 *
 * @param injectAt fraction of the input produced when the fault strikes
 * @param jobArgs extra job arguments; non-empty only for negative controls
 * @param kubernetesHa leader election and job metadata in ConfigMaps on a real API server on this
 *     machine instead of ZooKeeper (the cluster's processes stay local)
 * @param savepointDropped the major upgrade submits the next line's job without the savepoint it
 *     stopped with; true only for a negative control
 */
public record LocalScenario(
        String name,
        Fault fault,
        double injectAt,
        List<String> jobArgs,
        boolean control,
        boolean kubernetesHa,
        boolean savepointDropped) {

    /** As the report names and judges it. */
    Scenario scenario() {
        return new Scenario(name, control, true);
    }

    public static LocalScenario of(Fault fault, double injectAt) {
        return new LocalScenario(
                fault.id + "@" + Math.round(injectAt * 100) + "%", fault, injectAt, List.of(), false, false, false);
    }

    /**
     * The incident's failover for real on Kubernetes HA: the leading JobManager killed, the standby
     * elected through ConfigMap locks on a real kube-apiserver, under the Flink ServiceAccount's
     * RBAC from manifests/rbac.
     */
    public static LocalScenario jmFailoverOnKubernetesHa() {
        return new LocalScenario("jm-failover@50%/k8s-ha", Fault.JM_FAILOVER, 0.5, List.of(), false, true, false);
    }

    /**
     * Checkpointing off and reading from the latest offset, then a JobManager failover: the new
     * leader starts the job afresh, its window state gone and its input skipped to the end. (A
     * TaskManager loss alone is not enough: the surviving JobManager hands the failed readers their
     * splits back from the offsets they started at, so the whole input is read again.) Injected
     * early: the old TaskManagers keep working for ~10 s until they learn of the new leader, and
     * input must still be arriving after that.
     */
    public static LocalScenario noCheckpointsControl() {
        return new LocalScenario(
                "control:no-checkpoints",
                Fault.JM_FAILOVER,
                0.25,
                List.of("--lineflow.checkpointing.enabled", "false", "--lineflow.kafka.starting-offsets", "LATEST"),
                true,
                false,
                false);
    }

    /** An additive sink: rows replayed after recovery are added again. */
    public static LocalScenario additiveSinkControl() {
        return new LocalScenario(
                "control:additive-sink",
                Fault.TM_KILL,
                0.5,
                List.of("--lineflow.sink.mode", "ADDITIVE", "--execution.checkpointing.interval", "10 s"),
                true,
                false,
                false);
    }

    /**
     * The major upgrade halfway through the input, its next line's job submitted without the
     * savepoint: it starts from the consumer group's committed offsets with empty windows, so the
     * windows open at the stop lose what was counted of them before it.
     */
    public static LocalScenario majorUpgradeWithoutSavepointControl() {
        return new LocalScenario(
                "control:major-upgrade-no-savepoint", Fault.MAJOR_UPGRADE, 0.5, List.of(), true, false, true);
    }
}
