package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.Test;

/** The operator's pods as the drill reads them, from fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class OperatorPodsTest {
    KubernetesClient client;

    @Test
    void theOperatorIsReadyOnceAPodNotBeingDeletedIsReady() {
        OperatorPods operator = new OperatorPods(client, "operator");
        assertThat(operator.ready()).isFalse();
        client.resource(FakeOperator.pod("operator", "operator-1", OperatorPods.OPERATOR, "operator:1", false))
                .create();
        assertThat(operator.ready()).isFalse();
        client.resource(FakeOperator.pod("operator", "operator-2", OperatorPods.OPERATOR, "operator:2", true))
                .create();
        assertThat(operator.ready()).isTrue();
        assertThat(operator.images().split(" ")).containsExactlyInAnyOrder("operator:1", "operator:2");
    }
}
