package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.KubernetesStatus;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.model.SpecObservation.Mount;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Flattens a FlinkDeployment into the spec and status figures the checks read. */
public final class SpecReader {

    /** The operator's name for the Flink container in pod templates. */
    public static final String MAIN_CONTAINER = "flink-main-container";

    /** The entry class of lineflow's job (manifests/flink/flinkdeployment.yaml). */
    static final String LINEFLOW_ENTRY_CLASS = "io.lineflow.job.LineflowJob";

    /** Where lineflow's image puts the job jar (manifests/flink/flinkdeployment.yaml). */
    static final String LINEFLOW_JAR = "local:///opt/flink/usrlib/lineflow-job.jar";

    private SpecReader() {}

    public static SpecObservation spec(FlinkDeployment fd) {
        FlinkDeploymentSpec s = fd.getSpec() == null ? new FlinkDeploymentSpec() : fd.getSpec();
        boolean hasJob = s.getJob() != null;
        int replicas = s.getJobManager() == null || s.getJobManager().getReplicas() <= 0
                ? 1
                : s.getJobManager().getReplicas();
        PodTemplateSpec common = s.getPodTemplate();
        PodTemplateSpec jm =
                s.getJobManager() == null ? null : s.getJobManager().getPodTemplate();
        PodTemplateSpec tm =
                s.getTaskManager() == null ? null : s.getTaskManager().getPodTemplate();
        SpecObservation.Builder b = SpecObservation.builder(
                        fd.getMetadata().getNamespace(), fd.getMetadata().getName())
                .annotations(fd.getMetadata().getAnnotations())
                .flinkConfiguration(s.getFlinkConfiguration())
                .upgradeMode(hasJob ? s.getJob().getUpgradeMode() : null)
                .desiredState(hasJob ? s.getJob().getState() : null)
                .jobManagerReplicas(replicas)
                .mounts(mounts(common, jm), mounts(common, tm));
        if (hasJob) {
            if (!runsLineflowJob(s.getJob())) {
                b.otherJob();
            }
            b.jobArgs(
                    s.getJob().getArgs() == null
                            ? List.of()
                            : Arrays.stream(s.getJob().getArgs())
                                    .filter(Objects::nonNull)
                                    .toList());
        } else {
            b.session();
        }
        return b.build();
    }

    /**
     * Whether a job spec runs lineflow's job: its entry class is {@link #LINEFLOW_ENTRY_CLASS}, or it
     * names none and starts the jar lineflow's image carries ({@link #LINEFLOW_JAR}), whose manifest
     * names that class. Only then do the job's own defaults and switches count in the spec checks.
     */
    static boolean runsLineflowJob(JobSpec job) {
        String entry = job.getEntryClass();
        return entry == null || entry.isBlank()
                ? LINEFLOW_JAR.equals(job.getJarURI())
                : LINEFLOW_ENTRY_CLASS.equals(entry.strip());
    }

    public static KubernetesStatus status(FlinkDeployment fd) {
        FlinkDeploymentStatus st = fd.getStatus();
        if (st == null) {
            return KubernetesStatus.unknown();
        }
        return new KubernetesStatus(
                st.getJobStatus() == null ? null : st.getJobStatus().getState(),
                st.getJobManagerDeploymentStatus(),
                lifecycle(st),
                st.getError());
    }

    /**
     * The lifecycle state as the operator API of this build derives it, or null ("not reported")
     * when it cannot: it reads the last reconciled spec with a reader of its own, which fails on
     * what a newer operator accepts, such as {@code flinkVersion: v2_2}. The state is a detail of
     * the findings, never their cause, so a deployment on Flink 2.2 is judged as any other.
     */
    static ResourceLifecycleState lifecycle(FlinkDeploymentStatus status) {
        try {
            return status.getLifecycleState();
        } catch (RuntimeException unreadableSpec) {
            return null;
        }
    }

    /**
     * The main container as the operator builds it from the common pod template and a component's
     * (JobManager or TaskManager): volumes by name and mounts by path, the component's over the
     * common's, and the container's own entries, the common template's first.
     */
    public record MainContainer(Map<String, Volume> volumes, Map<String, VolumeMount> mounts, List<Container> parts) {}

    /** The main container of {@code common} and {@code component} (either may be null). */
    public static MainContainer mainContainer(PodTemplateSpec common, PodTemplateSpec component) {
        Map<String, Volume> volumes = new LinkedHashMap<>();
        Map<String, VolumeMount> byPath = new LinkedHashMap<>();
        List<Container> parts = new ArrayList<>();
        for (PodTemplateSpec t : new PodTemplateSpec[] {common, component}) {
            PodSpec ps = t == null ? null : t.getSpec();
            if (ps == null) {
                continue;
            }
            if (ps.getVolumes() != null) {
                ps.getVolumes().forEach(v -> volumes.put(v.getName(), v));
            }
            if (ps.getContainers() != null) {
                for (Container c : ps.getContainers()) {
                    if (MAIN_CONTAINER.equals(c.getName())) {
                        parts.add(c);
                        if (c.getVolumeMounts() != null) {
                            c.getVolumeMounts().forEach(m -> byPath.put(m.getMountPath(), m));
                        }
                    }
                }
            }
        }
        return new MainContainer(volumes, byPath, parts);
    }

    /** Mounts of the main container, the component template overriding the common one per path. */
    static List<Mount> mounts(PodTemplateSpec common, PodTemplateSpec component) {
        MainContainer main = mainContainer(common, component);
        List<Mount> out = new ArrayList<>();
        for (VolumeMount m : main.mounts().values()) {
            Volume v = main.volumes().get(m.getName());
            String type = typeOf(v);
            out.add(new Mount(
                    m.getMountPath(), m.getName(), type, isDurable(type) && !Boolean.TRUE.equals(m.getReadOnly())));
        }
        return out;
    }

    /** The kind of a volume as its spec names it ({@code configMap}, {@code emptyDir}, …; {@code undeclared}). */
    public static String typeOf(Volume v) {
        if (v == null) {
            return "undeclared";
        }
        if (v.getPersistentVolumeClaim() != null) return "persistentVolumeClaim";
        if (v.getNfs() != null) return "nfs";
        if (v.getCsi() != null) return "csi";
        if (v.getCephfs() != null) return "cephfs";
        if (v.getAzureFile() != null) return "azureFile";
        if (v.getGlusterfs() != null) return "glusterfs";
        if (v.getEmptyDir() != null) return "emptyDir";
        if (v.getHostPath() != null) return "hostPath";
        if (v.getEphemeral() != null) return "ephemeral";
        if (v.getConfigMap() != null) return "configMap";
        if (v.getSecret() != null) return "secret";
        return "other";
    }

    /** Volumes that outlive a pod and can be shared by JobManager and TaskManagers. */
    static boolean isDurable(String type) {
        return switch (type) {
            case "persistentVolumeClaim", "nfs", "csi", "cephfs", "azureFile", "glusterfs" -> true;
            default -> false;
        };
    }
}
