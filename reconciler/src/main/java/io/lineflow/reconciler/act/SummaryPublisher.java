package io.lineflow.reconciler.act;

import static io.lineflow.reconciler.ReconcilerOptions.SUMMARY_SUFFIX;

import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.HealthResult;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes each deployment's JSON health summary to a ConfigMap it owns (so it is garbage-collected
 * with the deployment). Only writes when the findings changed, so the API server is not churned.
 */
public final class SummaryPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(SummaryPublisher.class);
    public static final String DATA_KEY = "health.json";
    public static final String LABEL = "lineflow.io/health-summary";

    private final KubernetesClient client;
    private final String suffix;
    private final Clock clock;
    private final Map<DeploymentKey, String> lastWritten = new ConcurrentHashMap<>();

    public SummaryPublisher(KubernetesClient client, Configuration conf, Clock clock) {
        this.client = client;
        this.suffix = conf.get(SUMMARY_SUFFIX);
        this.clock = clock;
    }

    public String configMapName(FlinkDeployment fd) {
        return fd.getMetadata().getName() + suffix;
    }

    public void publish(FlinkDeployment fd, HealthResult result) {
        String ns = fd.getMetadata().getNamespace();
        DeploymentKey key = DeploymentKey.of(fd);
        // Content without the timestamp decides whether to write.
        String content = Reports.write(Reports.toJson(ns, fd.getMetadata().getName(), result, null));
        if (content.equals(lastWritten.get(key))) {
            return;
        }
        String json = Reports.write(Reports.toJson(ns, fd.getMetadata().getName(), result, clock.instant()));
        ConfigMap cm = new ConfigMapBuilder()
                .withNewMetadata()
                .withName(configMapName(fd))
                .withNamespace(ns)
                .addToLabels(LABEL, "true")
                .addToLabels("app.kubernetes.io/managed-by", EventPublisher.COMPONENT)
                .addToAnnotations("lineflow.io/status", result.status().name())
                .withOwnerReferences(new OwnerReferenceBuilder()
                        .withApiVersion(fd.getApiVersion())
                        .withKind(fd.getKind())
                        .withName(fd.getMetadata().getName())
                        .withUid(fd.getMetadata().getUid())
                        .build())
                .endMetadata()
                .addToData(DATA_KEY, json)
                .build();
        try {
            var cms = client.configMaps().inNamespace(ns);
            if (cms.withName(cm.getMetadata().getName()).get() == null) {
                cms.resource(cm).create();
            } else {
                cms.resource(cm).update();
            }
            lastWritten.put(key, content);
        } catch (KubernetesClientException e) {
            LOG.warn(
                    "Could not write health summary {} in {}: {}",
                    cm.getMetadata().getName(),
                    ns,
                    e.getMessage());
        }
    }

    public void retainOnly(java.util.Set<DeploymentKey> keys) {
        lastWritten.keySet().retainAll(keys);
    }
}
