package io.lineflow.reconciler.observe;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.apache.flink.kubernetes.operator.api.spec.AbstractFlinkSpec;

/** The reconciler's Kubernetes client, able to read FlinkDeployments that a newer operator wrote. */
public final class OperatorClient {
    private OperatorClient() {}

    /** A client on the usual configuration (in-cluster, or the kubeconfig) with {@link #serialization}. */
    public static KubernetesClient create() {
        return new KubernetesClientBuilder()
                .withKubernetesSerialization(serialization())
                .build();
    }

    /** The same client on a given configuration (tests: a mock or test API server). */
    public static KubernetesClient create(Config config) {
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withKubernetesSerialization(serialization())
                .build();
    }

    /**
     * fabric8's serialization, except that an enum value the operator API of this build does not
     * know is read as null instead of failing the whole object. Operator 1.15 writes lifecycle
     * states that the 1.10 API lacks ({@code DELETING}, {@code DELETED}), and a single such
     * FlinkDeployment would otherwise fail the informer's list of every deployment. Likewise
     * {@code spec.flinkConfiguration}, which 1.15's CRD takes as any YAML, is read flat
     * ({@link FlatFlinkConfiguration}). Unknown fields (1.15's {@code status.conditions},
     * {@code spec.job.autoscalerResetNonce}) are already ignored by fabric8's serialization.
     */
    public static KubernetesSerialization serialization() {
        return new KubernetesSerialization(
                new ObjectMapper()
                        .enable(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL)
                        .addMixIn(AbstractFlinkSpec.class, FlatFlinkConfiguration.class),
                true);
    }
}
