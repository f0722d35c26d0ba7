package io.lineflow.reconciler.model;

import java.util.List;
import java.util.Map;

/**
 * What a FlinkDeployment asks for, flattened to the figures the spec checks need.
 *
 * @param flinkConfiguration {@code spec.flinkConfiguration}, as written
 * @param hasJob whether {@code spec.job} is set (application deployment); session clusters have none
 * @param upgradeMode {@code spec.job.upgradeMode} lower-cased, {@code null} if unset
 * @param desiredState {@code spec.job.state} lower-cased, {@code null} if unset
 * @param jobManagerReplicas {@code spec.jobManager.replicas} (1 when unset)
 * @param jobManagerMounts volume mounts of the JobManager's main container
 * @param taskManagerMounts volume mounts of the TaskManagers' main container
 */
public record SpecObservation(
        String namespace,
        String name,
        Map<String, String> annotations,
        Map<String, String> flinkConfiguration,
        boolean hasJob,
        String upgradeMode,
        String desiredState,
        int jobManagerReplicas,
        List<Mount> jobManagerMounts,
        List<Mount> taskManagerMounts) {

    public SpecObservation {
        annotations = Map.copyOf(annotations == null ? Map.of() : annotations);
        flinkConfiguration = Map.copyOf(flinkConfiguration == null ? Map.of() : flinkConfiguration);
        jobManagerMounts = List.copyOf(jobManagerMounts == null ? List.of() : jobManagerMounts);
        taskManagerMounts = List.copyOf(taskManagerMounts == null ? List.of() : taskManagerMounts);
    }

    /** {@code namespace/name}. */
    public String key() {
        return namespace + "/" + name;
    }

    /** A volume mount of the Flink main container and whether its volume outlives the pod. */
    public record Mount(String mountPath, String volumeName, String volumeType, boolean durable) {}
}
