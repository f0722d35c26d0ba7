package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the in-cluster reconciler says as the drill reads it, from fabric8's mock API server. */
@EnableKubernetesMockClient(crud = true)
class ReconcilerOutputsTest {
    private static final String NS = "lineflow";

    KubernetesClient client;

    private FakeOperator operator;
    private ReconcilerOutputs reconciler;

    @BeforeEach
    void deployed() {
        operator = FakeOperator.deploy(client, NS);
        reconciler = new ReconcilerOutputs(client, NS, FlinkCluster.NAME);
    }

    @AfterEach
    void stopOperator() {
        operator.close();
    }

    @Test
    void whatTheReconcilerReports() {
        assertThat(reconciler.eventReported("CHECKPOINTING_DISABLED")).isFalse();
        assertThat(reconciler.healthStatus()).isEmpty();
        operator.event("lineflow.1", "CHECKPOINTING_DISABLED", "other");
        assertThat(reconciler.eventReported("CHECKPOINTING_DISABLED"))
                .as("on another deployment")
                .isFalse();
        operator.event("lineflow.2", "CHECKPOINTING_DISABLED", FlinkCluster.NAME);
        assertThat(reconciler.eventReported("CHECKPOINTING_DISABLED")).isTrue();
        client.resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(ReconcilerOutputs.HEALTH)
                        .withNamespace(NS)
                        .addToAnnotations(ReconcilerOutputs.STATUS_ANNOTATION, "HEALTHY")
                        .endMetadata()
                        .addToData("summary.json", "{\"findings\":[\"CHECKPOINTING_DISABLED\"]}")
                        .build())
                .create();
        assertThat(reconciler.healthStatus()).isEqualTo("HEALTHY");
        assertThat(reconciler.health())
                .hasValueSatisfying(c -> assertThat(String.valueOf(c.getData())).contains("CHECKPOINTING_DISABLED"));
    }
}
