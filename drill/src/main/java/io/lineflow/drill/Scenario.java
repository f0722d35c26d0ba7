package io.lineflow.drill;

import java.util.List;

/**
 * One drill run: a fault at a point of the input, on the real job — or a negative control, a
 * deliberately broken job that the verifier must catch.
 */
final class Scenario {
    final String name;
    final Fault fault;
    /** Fraction of the input produced when the fault strikes. */
    final double injectAt;
    /** Extra job arguments; non-empty only for negative controls. */
    final List<String> jobArgs;

    final boolean control;
    /** Leader election and job metadata in ConfigMaps on a real API server instead of ZooKeeper. */
    final boolean kubernetesHa;
    /** Whether something is done to the job mid-input (false: the input and the table only). */
    final boolean injects;

    private Scenario(
            String name, Fault fault, double injectAt, List<String> jobArgs, boolean control, boolean kubernetesHa) {
        this(name, fault, injectAt, jobArgs, control, kubernetesHa, fault != null);
    }

    private Scenario(
            String name,
            Fault fault,
            double injectAt,
            List<String> jobArgs,
            boolean control,
            boolean kubernetesHa,
            boolean injects) {
        this.name = name;
        this.fault = fault;
        this.injectAt = injectAt;
        this.jobArgs = jobArgs;
        this.control = control;
        this.kubernetesHa = kubernetesHa;
        this.injects = injects;
    }

    /** A scenario of the Kubernetes drill ({@link KubernetesDrill}): the fault goes through the cluster. */
    static Scenario onKubernetes(KubeFault fault) {
        return new Scenario(
                "kubernetes:" + fault.id,
                null,
                fault == KubeFault.STEADY ? 1.0 : 0.5,
                List.of(),
                fault.control,
                true,
                fault != KubeFault.STEADY);
    }

    static Scenario of(Fault fault, double injectAt) {
        return new Scenario(
                fault.id + "@" + Math.round(injectAt * 100) + "%", fault, injectAt, List.of(), false, false);
    }

    /**
     * The incident's failover for real on Kubernetes HA: the leading JobManager killed, the standby
     * elected through ConfigMap locks on a real kube-apiserver, under the Flink ServiceAccount's
     * RBAC from manifests/rbac.
     */
    static Scenario jmFailoverOnKubernetesHa() {
        return new Scenario("jm-failover@50%/k8s-ha", Fault.JM_FAILOVER, 0.5, List.of(), false, true);
    }

    /**
     * Checkpointing off and reading from the latest offset, then a JobManager failover: the new
     * leader starts the job afresh, its window state gone and its input skipped to the end. (A
     * TaskManager loss alone is not enough: the surviving JobManager hands the failed readers their
     * splits back from the offsets they started at, so the whole input is read again.) Injected
     * early: the old TaskManagers keep working for ~10 s until they learn of the new leader, and
     * input must still be arriving after that.
     */
    static Scenario noCheckpointsControl() {
        return new Scenario(
                "control:no-checkpoints",
                Fault.JM_FAILOVER,
                0.25,
                List.of("--lineflow.checkpointing.enabled", "false", "--lineflow.kafka.starting-offsets", "LATEST"),
                true,
                false);
    }

    /** An additive sink: rows replayed after recovery are added again. */
    static Scenario additiveSinkControl() {
        return new Scenario(
                "control:additive-sink",
                Fault.TM_KILL,
                0.5,
                List.of("--lineflow.sink.mode", "ADDITIVE", "--execution.checkpointing.interval", "10 s"),
                true,
                false);
    }
}
