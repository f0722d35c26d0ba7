package io.lineflow.drill.kubernetes;

import io.lineflow.reconciler.observe.OperatorClient;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.net.URI;
import java.util.function.Function;

/**
 * What the Kubernetes drill reads of one FlinkDeployment's cluster, by where it reads it: the
 * FlinkDeployment's spec and status, the pods and the HA ConfigMap, the job through the leading
 * JobManager's REST API, the operator's pods and what the in-cluster reconciler says. All through
 * fabric8 with the operator's own types, as {@link ApiServer} asks.
 */
final class FlinkCluster {
    static final String NAME = "lineflow";

    private final KubernetesClient client;
    private final String namespace;
    private final String operatorNamespace;
    private final Function<String, URI> restAt;
    private final DeploymentResource deployment;
    private final ClusterPods pods;
    private final LeaderRest rest;
    private final OperatorPods operator;
    private final ReconcilerOutputs reconciler;

    /** The cluster of {@code KUBECONFIG}, as kubectl's. */
    static FlinkCluster ofKubeconfig(String namespace, String operatorNamespace) {
        return new FlinkCluster(
                OperatorClient.create(ApiServer.asKubectl(Config.autoConfigure(null))), namespace, operatorNamespace);
    }

    FlinkCluster(KubernetesClient client, String namespace, String operatorNamespace) {
        this(client, namespace, operatorNamespace, LeaderRest.AT_POD_IP);
    }

    /** With {@code restAt} as {@link LeaderRest} takes it: tests answer on loopback. */
    FlinkCluster(KubernetesClient client, String namespace, String operatorNamespace, Function<String, URI> restAt) {
        this(client, namespace, operatorNamespace, restAt, NAME);
    }

    private FlinkCluster(
            KubernetesClient client,
            String namespace,
            String operatorNamespace,
            Function<String, URI> restAt,
            String name) {
        this.client = client;
        this.namespace = namespace;
        this.operatorNamespace = operatorNamespace;
        this.restAt = restAt;
        this.deployment = new DeploymentResource(client, namespace, name);
        this.pods = new ClusterPods(client, namespace, name);
        this.rest = new LeaderRest(deployment, pods, restAt);
        this.operator = new OperatorPods(client, operatorNamespace);
        this.reconciler = new ReconcilerOutputs(client, namespace, name);
    }

    /** The same reads of another FlinkDeployment of the namespace (the drill's incident runs one). */
    FlinkCluster named(String other) {
        return new FlinkCluster(client, namespace, operatorNamespace, restAt, other);
    }

    DeploymentResource deployment() {
        return deployment;
    }

    ClusterPods pods() {
        return pods;
    }

    LeaderRest rest() {
        return rest;
    }

    OperatorPods operator() {
        return operator;
    }

    ReconcilerOutputs reconciler() {
        return reconciler;
    }
}
