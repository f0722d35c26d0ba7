package io.lineflow.reconciler.model;

/**
 * What the operator reports in {@code FlinkDeployment.status}.
 *
 * @param jobState {@code status.jobStatus.state}, e.g. RUNNING; {@code null} if not reported
 * @param jobManagerDeploymentStatus e.g. READY, DEPLOYING; {@code null} if not reported
 * @param lifecycleState e.g. STABLE, FAILED; {@code null} if not reported
 * @param error {@code status.error}, {@code null} if none
 */
public record KubernetesStatus(
        String jobState, String jobManagerDeploymentStatus, String lifecycleState, String error) {

    public static KubernetesStatus unknown() {
        return new KubernetesStatus(null, null, null, null);
    }
}
