package io.lineflow.k8s;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.configuration.KubernetesConfigOptions;
import org.apache.flink.kubernetes.configuration.KubernetesHighAvailabilityOptions;
import org.apache.flink.kubernetes.configuration.KubernetesLeaderElectionConfiguration;
import org.apache.flink.kubernetes.kubeclient.FlinkKubeClientFactory;
import org.apache.flink.kubernetes.kubeclient.resources.KubernetesLeaderElector;

import java.time.Duration;

/**
 * A JobManager's leader contender in its own JVM: Flink's {@link KubernetesLeaderElector} on the
 * cluster ConfigMap, configured as Flink's Kubernetes HA is. Prints {@code LEADER id} and {@code
 * NOT_LEADER id}. Usage: {@code LeaderContender KUBECONFIG NAMESPACE CLUSTER_ID IDENTITY}.
 */
public final class LeaderContender {

    private LeaderContender() {}

    /** The Flink configuration a JobManager with {@code high-availability.type: kubernetes} would have. */
    static Configuration flinkConfiguration(String kubeconfig, String namespace, String clusterId) {
        Configuration conf = new Configuration();
        conf.set(KubernetesConfigOptions.KUBE_CONFIG_FILE, kubeconfig);
        conf.set(KubernetesConfigOptions.NAMESPACE, namespace);
        conf.set(KubernetesConfigOptions.CLUSTER_ID, clusterId);
        // Short leases so a killed leader is replaced within seconds (defaults: 15 s, 15 s, 5 s).
        conf.set(KubernetesHighAvailabilityOptions.KUBERNETES_LEASE_DURATION, Duration.ofSeconds(4));
        conf.set(KubernetesHighAvailabilityOptions.KUBERNETES_RENEW_DEADLINE, Duration.ofSeconds(3));
        conf.set(KubernetesHighAvailabilityOptions.KUBERNETES_RETRY_PERIOD, Duration.ofMillis(500));
        return conf;
    }

    public static void main(String[] args) throws InterruptedException {
        String identity = args[3];
        Configuration conf = flinkConfiguration(args[0], args[1], args[2]);
        var client = FlinkKubeClientFactory.getInstance().createFabric8ioKubernetesClient(conf);
        var election = new KubernetesLeaderElectionConfiguration(args[2] + "-cluster-config-map", identity, conf);
        KubernetesLeaderElector elector =
                new KubernetesLeaderElector(client, election, new KubernetesLeaderElector.LeaderCallbackHandler() {
                    @Override
                    public void isLeader() {
                        System.out.println("LEADER " + identity);
                        System.out.flush();
                    }

                    @Override
                    public void notLeader() {
                        System.out.println("NOT_LEADER " + identity);
                        System.out.flush();
                    }
                });
        elector.run();
        System.out.println("STARTED " + identity);
        System.out.flush();
        Thread.currentThread().join();
    }
}
