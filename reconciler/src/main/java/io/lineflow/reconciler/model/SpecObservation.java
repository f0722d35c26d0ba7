package io.lineflow.reconciler.model;

import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a FlinkDeployment asks for, flattened to the figures the spec checks need.
 *
 * @param flinkConfiguration {@code spec.flinkConfiguration}, as written
 * @param hasJob whether {@code spec.job} is set (application deployment); session clusters have none
 * @param upgradeMode {@code spec.job.upgradeMode}, {@code null} if unset (the operator then upgrades stateless)
 * @param desiredState {@code spec.job.state}, {@code null} if unset
 * @param jobManagerReplicas {@code spec.jobManager.replicas} (1 when unset)
 * @param jobManagerMounts volume mounts of the JobManager's main container
 * @param taskManagerMounts volume mounts of the TaskManagers' main container
 * @param jobArgs {@code spec.job.args}, the job's own command line
 * @param lineflowJob whether {@code spec.job} runs lineflow's job ({@code SpecReader} decides)
 */
public record SpecObservation(
        String namespace,
        String name,
        Map<String, String> annotations,
        Map<String, String> flinkConfiguration,
        boolean hasJob,
        UpgradeMode upgradeMode,
        JobState desiredState,
        int jobManagerReplicas,
        List<Mount> jobManagerMounts,
        List<Mount> taskManagerMounts,
        List<String> jobArgs,
        boolean lineflowJob) {

    public SpecObservation {
        annotations = Map.copyOf(annotations == null ? Map.of() : annotations);
        flinkConfiguration = Map.copyOf(flinkConfiguration == null ? Map.of() : flinkConfiguration);
        jobManagerMounts = List.copyOf(jobManagerMounts == null ? List.of() : jobManagerMounts);
        taskManagerMounts = List.copyOf(taskManagerMounts == null ? List.of() : taskManagerMounts);
        jobArgs = List.copyOf(jobArgs == null ? List.of() : jobArgs);
    }

    /** A deployment named {@code namespace/name} with an application job and nothing else set. */
    public static Builder builder(String namespace, String name) {
        return new Builder(namespace, name);
    }

    /**
     * What the job reads as its settings: {@code spec.flinkConfiguration} with the job's
     * {@code --key value} arguments over it, as lineflow's job merges them.
     */
    public Map<String, String> jobSettings() {
        Map<String, String> settings = new LinkedHashMap<>(flinkConfiguration);
        for (int i = 0; i + 1 < jobArgs.size(); i++) {
            String arg = jobArgs.get(i);
            if (arg.startsWith("--") && !jobArgs.get(i + 1).startsWith("--")) {
                settings.put(arg.substring(2), jobArgs.get(++i));
            }
        }
        return settings;
    }

    /** Whether {@code spec.job.state} asks for the job to be suspended: then no job runs, on purpose. */
    public boolean suspended() {
        return desiredState == JobState.SUSPENDED;
    }

    /** A value of the operator's spec as a FlinkDeployment writes it: {@code LAST_STATE} as {@code last-state}. */
    public static String written(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Which deployment this is. */
    public DeploymentKey key() {
        return new DeploymentKey(namespace, name);
    }

    /** Builds a {@link SpecObservation} by name rather than by position. */
    public static final class Builder {
        private final String namespace;
        private final String name;
        private Map<String, String> annotations = Map.of();
        private Map<String, String> flinkConfiguration = Map.of();
        private boolean hasJob = true;
        private UpgradeMode upgradeMode;
        private JobState desiredState;
        private int jobManagerReplicas = 1;
        private List<Mount> jobManagerMounts = List.of();
        private List<Mount> taskManagerMounts = List.of();
        private List<String> jobArgs = List.of();
        private boolean lineflowJob = true;

        private Builder(String namespace, String name) {
            this.namespace = namespace;
            this.name = name;
        }

        public Builder annotations(Map<String, String> annotations) {
            this.annotations = annotations;
            return this;
        }

        public Builder flinkConfiguration(Map<String, String> flinkConfiguration) {
            this.flinkConfiguration = flinkConfiguration;
            return this;
        }

        /** A session cluster: no {@code spec.job}. */
        public Builder session() {
            this.hasJob = false;
            return this;
        }

        public Builder upgradeMode(UpgradeMode upgradeMode) {
            this.upgradeMode = upgradeMode;
            return this;
        }

        public Builder desiredState(JobState desiredState) {
            this.desiredState = desiredState;
            return this;
        }

        public Builder jobManagerReplicas(int jobManagerReplicas) {
            this.jobManagerReplicas = jobManagerReplicas;
            return this;
        }

        public Builder mounts(List<Mount> jobManager, List<Mount> taskManager) {
            this.jobManagerMounts = jobManager;
            this.taskManagerMounts = taskManager;
            return this;
        }

        public Builder jobArgs(List<String> jobArgs) {
            this.jobArgs = jobArgs;
            return this;
        }

        /** A job other than lineflow's: its own defaults are unknown to the reconciler. */
        public Builder otherJob() {
            this.lineflowJob = false;
            return this;
        }

        public SpecObservation build() {
            return new SpecObservation(
                    namespace,
                    name,
                    annotations,
                    flinkConfiguration,
                    hasJob,
                    upgradeMode,
                    desiredState,
                    jobManagerReplicas,
                    jobManagerMounts,
                    taskManagerMounts,
                    jobArgs,
                    hasJob && lineflowJob);
        }
    }

    /** A volume mount of the Flink main container and whether its volume outlives the pod. */
    public record Mount(String mountPath, String volumeName, String volumeType, boolean durable) {}
}
