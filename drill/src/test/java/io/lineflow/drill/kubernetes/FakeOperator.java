package io.lineflow.drill.kubernetes;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;
import org.apache.flink.kubernetes.operator.api.status.ReconciliationState;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The Flink Kubernetes Operator as far as the drill sees it, on fabric8's mock API server:
 * lineflow's FlinkDeployment deployed and running with its JobManager and TaskManager pods, and
 * every change of its spec reconciled, deployed and marked stable shortly after, with the job in
 * the state the spec asks for. The status is computed by the operator's own API types.
 */
final class FakeOperator implements AutoCloseable {
    /** The pod IPs of {@code lineflow-jobmanager-1} and, once there, {@code lineflow-jobmanager-2}. */
    static final String JM_1_IP = "10.244.0.11";

    static final String JM_2_IP = "10.244.0.12";

    private final KubernetesClient client;
    private final String namespace;
    private final List<JobState> reconciled = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();

    private FakeOperator(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** lineflow deployed in {@code namespace}: spec reconciled and stable, the job RUNNING, its pods up. */
    static FakeOperator deploy(KubernetesClient client, String namespace) {
        FlinkDeployment fd = new FlinkDeployment();
        fd.setMetadata(new ObjectMetaBuilder()
                .withName(FlinkCluster.NAME)
                .withNamespace(namespace)
                .build());
        FlinkDeploymentSpec spec = new FlinkDeploymentSpec();
        spec.setImage("lineflow-job:e2e");
        JobSpec job = new JobSpec();
        job.setParallelism(2);
        job.setUpgradeMode(UpgradeMode.LAST_STATE);
        job.setState(JobState.RUNNING);
        spec.setJob(job);
        fd.setSpec(spec);
        FlinkDeploymentStatus status = new FlinkDeploymentStatus();
        status.setJobStatus(new org.apache.flink.kubernetes.operator.api.status.JobStatus());
        status.getJobStatus().setJobId("job-1");
        fd.setStatus(status);
        markDeployed(fd);
        client.resource(fd).create();
        client.resource(pod(namespace, "lineflow-jobmanager-1", ClusterPods.JM, "lineflow-job:e2e", true))
                .create();
        client.resource(pod(namespace, "lineflow-taskmanager-1-1", ClusterPods.TM, "lineflow-job:e2e", true))
                .create();
        FakeOperator operator = new FakeOperator(client, namespace);
        operator.loop.scheduleWithFixedDelay(operator::reconcile, 20, 20, TimeUnit.MILLISECONDS);
        return operator;
    }

    /** A pod with {@code labels} whose first container runs {@code image}. */
    static Pod pod(String namespace, String name, Map<String, String> labels, String image, boolean ready) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("flink-main-container")
                .withImage(image)
                .endContainer()
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    /** A second JobManager, {@code lineflow-jobmanager-2}; the two at {@link #JM_1_IP} and {@link #JM_2_IP}. */
    void secondJobManager() {
        client.pods().inNamespace(namespace).withName("lineflow-jobmanager-1").edit(p -> {
            p.getStatus().setPodIP(JM_1_IP);
            return p;
        });
        Pod second = pod(namespace, "lineflow-jobmanager-2", ClusterPods.JM, "lineflow-job:e2e", true);
        second.getStatus().setPodIP(JM_2_IP);
        client.resource(second).create();
    }

    /** Two JobManagers, {@code lineflow-jobmanager-2} leading (the HA ConfigMap names it). */
    void secondJobManagerLeading() {
        secondJobManager();
        haLeader("6c1b", JM_2_IP, JM_2_IP);
    }

    /**
     * Kubernetes HA's ConfigMap as Flink 1.20 writes it: the lock held by {@code holder}, the REST
     * server leading at {@code restServerIp} and the Dispatcher at {@code dispatcherIp} (the two
     * differ only while leadership changes hands); a new leader rewrites it.
     */
    void haLeader(String holder, String restServerIp, String dispatcherIp) {
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(ClusterPods.HA_CONFIG_MAP)
                        .withNamespace(namespace)
                        .addToAnnotations(
                                "control-plane.alpha.kubernetes.io/leader",
                                "{\"holderIdentity\":\"" + holder + "\",\"leaseDuration\":15.0}")
                        .endMetadata()
                        .addToData("org.apache.flink.k8s.leader.restserver", "http://" + restServerIp + ":8081\nf00d")
                        .addToData(
                                "org.apache.flink.k8s.leader.dispatcher",
                                "pekko.tcp://flink@" + dispatcherIp + ":6123/user/rpc/dispatcher_1\nf00d")
                        .build())
                .createOr(NonDeletingOperation::update);
    }

    /** The reconciler's Event {@code name} with {@code reason} on the FlinkDeployment {@code deployment}. */
    void event(String name, String reason, String deployment) {
        client.resource(new EventBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .endMetadata()
                        .withReason(reason)
                        .withNewInvolvedObject()
                        .withKind("FlinkDeployment")
                        .withName(deployment)
                        .endInvolvedObject()
                        .build())
                .create();
    }

    FlinkDeployment deployment() {
        return client.resources(FlinkDeployment.class)
                .inNamespace(namespace)
                .withName(FlinkCluster.NAME)
                .get();
    }

    /** The job states of the specs reconciled since the deployment, in order. */
    List<JobState> reconciledJobStates() {
        return List.copyOf(reconciled);
    }

    /** Sets the job's state as the operator observes it, e.g. restarting after a lost TaskManager. */
    void jobState(JobStatus state) {
        FlinkDeployment fd = deployment();
        fd.getStatus().getJobStatus().setState(state);
        client.resource(fd).updateStatus();
    }

    /** One pass: a spec other than the one last reconciled is deployed, and becomes stable. */
    private void reconcile() {
        try {
            FlinkDeployment fd = deployment();
            if (fd == null
                    || fd.getSpec()
                            .equals(fd.getStatus().getReconciliationStatus().deserializeLastReconciledSpec())) {
                return;
            }
            markDeployed(fd);
            client.resource(fd).updateStatus();
            reconciled.add(fd.getSpec().getJob().getState());
        } catch (KubernetesClientException e) {
            // Changed meanwhile (a conflict): the next pass reads it again.
        }
    }

    private static void markDeployed(FlinkDeployment fd) {
        var reconciliation = fd.getStatus().getReconciliationStatus();
        reconciliation.serializeAndSetLastReconciledSpec(fd.getSpec(), fd);
        reconciliation.markReconciledSpecAsStable();
        reconciliation.setState(ReconciliationState.DEPLOYED);
        fd.getStatus()
                .getJobStatus()
                .setState(
                        fd.getSpec().getJob().getState() == JobState.SUSPENDED
                                ? JobStatus.SUSPENDED
                                : JobStatus.RUNNING);
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
