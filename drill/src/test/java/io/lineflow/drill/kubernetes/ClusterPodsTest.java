package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

/** The job's pods and Kubernetes HA's leader as the drill reads them, from fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class ClusterPodsTest {
    private static final String NS = "lineflow";

    KubernetesClient client;

    private FakeOperator operator;
    private ClusterPods pods;

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
        pods = new ClusterPods(client, NS, FlinkCluster.NAME);
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    @Test
    void podsByLabelTheirUidsAndImages() {
        assertThat(pods.uids(ClusterPods.JM))
                .isEqualTo(Set.of(client.pods()
                        .inNamespace(NS)
                        .withName("lineflow-jobmanager-1")
                        .get()
                        .getMetadata()
                        .getUid()));
        assertThat(pods.images(ClusterPods.TM)).isEqualTo("lineflow-job:e2e");
        assertThat(pods.withLabels(Map.of("app", FlinkCluster.NAME)))
                .hasValueSatisfying(p -> assertThat(p).hasSize(2));
        client.pods().inNamespace(NS).delete();
        assertThat(pods.withLabels(Map.of("app", FlinkCluster.NAME)))
                .hasValueSatisfying(p -> assertThat(p).isEmpty());
        assertThat(pods.uids(ClusterPods.JM)).isEmpty();
    }

    @Test
    void theLeaderIsTheJobManagerWhoseIpTheHaConfigMapNames() {
        assertThat(pods.leader()).as("no HA ConfigMap yet").isEmpty();
        operator.secondJobManagerLeading();
        assertThat(pods.leader())
                .hasValueSatisfying(p -> assertThat(p.getMetadata().getName()).isEqualTo("lineflow-jobmanager-2"));
        assertThat(pods.leaderHolder()).isEqualTo("6c1b");
    }

    @Test
    void noLeaderWhileTheLeadingComponentsNameDifferentJobManagers() {
        operator.secondJobManager();
        operator.haLeader("6c1b", FakeOperator.JM_2_IP, FakeOperator.JM_1_IP);
        assertThat(pods.leader()).isEmpty();
    }

    @Test
    void noLeaderWhenTheHaConfigMapNamesNoJobManagersIp() {
        operator.secondJobManager();
        operator.haLeader("6c1b", "10.244.0.99", "10.244.0.99");
        assertThat(pods.leader()).isEmpty();
    }
}
