package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.ApiServer.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The FlinkDeployment {@code name}'s spec and status, as the operator's own types read them or,
 * where the 1.10 API cannot, as written; and the one change the drill makes to its spec.
 */
record DeploymentResource(KubernetesClient client, String namespace, String name) {
    /** FlinkDeployments read as plain objects: what the operator wrote, whatever this API knows. */
    private static final ResourceDefinitionContext FLINK_DEPLOYMENTS = new ResourceDefinitionContext.Builder()
            .withGroup("flink.apache.org")
            .withVersion("v1beta1")
            .withKind("FlinkDeployment")
            .withPlural("flinkdeployments")
            .withNamespaced(true)
            .build();

    /** The FlinkDeployment's status; empty while it cannot be read or has none. */
    Optional<FlinkDeploymentStatus> status() {
        return read(() -> client.resources(FlinkDeployment.class)
                        .inNamespace(namespace)
                        .withName(name)
                        .get())
                .map(FlinkDeployment::getStatus);
    }

    /** The operator's view of the job, {@code status.jobStatus.state}; empty when there is none. */
    Optional<JobStatus> jobState() {
        return jobStatus(s -> s.getState());
    }

    /** The job's id as the operator reports it; "" when there is none. */
    String jobId() {
        return jobStatus(s -> s.getJobId()).orElse("");
    }

    /** Where the operator's last savepoint upgrade restored from: either field it may record it in; "" for none. */
    String upgradeSavepoint() {
        return jobStatus(s -> {
                    String last =
                            s.getSavepointInfo() == null || s.getSavepointInfo().getLastSavepoint() == null
                                    ? null
                                    : s.getSavepointInfo().getLastSavepoint().getLocation();
                    return last != null && !last.isEmpty() ? last : s.getUpgradeSavepointPath();
                })
                .orElse("");
    }

    /**
     * The lifecycle state the operator wrote ({@code status.lifecycleState}), read as it is: the
     * 1.10 API's own getter derives it again from the reconciled spec, which it cannot read once
     * that names {@code flinkVersion: v2_2}. Empty when there is none, or for a state the 1.10 API
     * lacks (operator 1.15's {@code DELETING}, {@code DELETED}).
     */
    Optional<ResourceLifecycleState> lifecycle() {
        return written("status")
                .map(status -> status.get("lifecycleState"))
                .flatMap(state -> Arrays.stream(ResourceLifecycleState.values())
                        .filter(known -> known.name().equals(state))
                        .findFirst());
    }

    /** The spec the operator last reconciled; empty before the first. */
    Optional<FlinkDeploymentSpec> reconciledSpec() {
        // Read with the client's serialization, not the operator API's own reader, which fails on
        // a flinkVersion the 1.10 API does not know (v2_2).
        return status().flatMap(s -> Optional.ofNullable(s.getReconciliationStatus()))
                .map(r -> r.getLastReconciledSpec())
                .map(json -> client.getKubernetesSerialization().unmarshal(json, JsonNode.class))
                .map(reconciled -> reconciled.get("spec"))
                .map(spec -> client.getKubernetesSerialization().convertValue(spec, FlinkDeploymentSpec.class));
    }

    /**
     * The deployment's {@code spec.flinkVersion} as written ({@code v1_20}, {@code v2_2}): read
     * as it is, since the 1.10 API's enum ends at {@code v1_20}. Empty while it cannot be read.
     */
    Optional<String> flinkVersion() {
        return written("spec").map(spec -> spec.get("flinkVersion")).map(String::valueOf);
    }

    /**
     * The job's checkpoint timeout as its FlinkDeployment sets it ({@code flinkConfiguration}'s
     * flat keys), else Flink's default.
     *
     * @throws IllegalStateException when the FlinkDeployment cannot be read
     */
    Duration checkpointTimeout() {
        Map<?, ?> spec = written("spec")
                .orElseThrow(() -> new IllegalStateException("the FlinkDeployment " + name + " in " + namespace
                        + " could not be read for its checkpoint timeout"));
        Map<String, String> flat = new TreeMap<>();
        if (spec.get("flinkConfiguration") instanceof Map<?, ?> entries) {
            entries.forEach((k, v) -> flat.put(String.valueOf(k), String.valueOf(v)));
        }
        return Configuration.fromMap(flat).get(CheckpointingOptions.CHECKPOINTING_TIMEOUT);
    }

    /** Sets {@code spec.job.state}, and nothing else, as {@code kubectl patch --type merge} would. */
    void setJobState(JobState state) {
        client.resources(FlinkDeployment.class)
                .inNamespace(namespace)
                .withName(name)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        client.getKubernetesSerialization()
                                .asJson(Map.of("spec", Map.of("job", Map.of("state", state)))));
    }

    /**
     * The FlinkDeployment's {@code spec} or {@code status} as written, read as a plain object;
     * empty while it cannot be read or has none.
     */
    private Optional<Map<?, ?>> written(String part) {
        return read(() -> client.genericKubernetesResources(FLINK_DEPLOYMENTS)
                        .inNamespace(namespace)
                        .withName(name)
                        .get())
                .map(d -> d.getAdditionalProperties().get(part))
                .filter(Map.class::isInstance)
                .map(Map.class::cast);
    }

    /** A field of {@code status.jobStatus}; empty when there is none. */
    private <T> Optional<T> jobStatus(Function<org.apache.flink.kubernetes.operator.api.status.JobStatus, T> field) {
        return status().map(FlinkDeploymentStatus::getJobStatus).map(field).filter(Objects::nonNull);
    }
}
