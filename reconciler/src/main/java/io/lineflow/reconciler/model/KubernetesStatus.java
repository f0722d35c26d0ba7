package io.lineflow.reconciler.model;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;

/**
 * What the operator reports in {@code FlinkDeployment.status}.
 *
 * @param jobState {@code status.jobStatus.state}, e.g. RUNNING; {@code null} if not reported
 * @param jobManagerDeploymentStatus e.g. READY, DEPLOYING; {@code null} if not reported
 * @param lifecycleState e.g. STABLE, FAILED; {@code null} if not reported
 * @param error {@code status.error}, {@code null} if none
 */
public record KubernetesStatus(
        JobStatus jobState,
        JobManagerDeploymentStatus jobManagerDeploymentStatus,
        ResourceLifecycleState lifecycleState,
        String error) {

    public static KubernetesStatus unknown() {
        return new KubernetesStatus(null, null, null, null);
    }
}
