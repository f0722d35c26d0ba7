package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The e2e Prometheus scrapes what the shipped PodMonitors select among pods made from the shipped
 * pod templates: a label or port renamed on one side only fails here, before an e2e run.
 */
class ScrapeDiscoveryTest {
    private static final Path REPO = Path.of("..");
    private static final String NS = "lineflow";

    @Test
    void theShippedPodMonitorsSelectTheShippedPodsOnTheirMetricsPorts() throws IOException {
        List<GenericKubernetesResource> monitors = List.of(
                monitor("manifests/monitoring/podmonitor.yaml"),
                monitor("manifests/reconciler/monitoring/podmonitor.yaml"));
        Pod jobManager = pod("lineflow-jm-0", flinkTemplate(), "Running");
        Pod reconciler = pod("lineflow-reconciler-0", reconcilerTemplate(), "Running");

        List<ScrapeDiscovery.Target> targets = ScrapeDiscovery.targets(monitors, List.of(jobManager, reconciler));

        assertThat(targets).hasSize(2);
        ScrapeDiscovery.Target flink = targets.get(0);
        assertThat(flink.address()).isEqualTo("10.244.0.9:9249");
        assertThat(flink.labels())
                .containsEntry("job", NS + "/lineflow-flink")
                .containsEntry("pod", "lineflow-jm-0")
                .containsEntry("namespace", NS)
                .containsEntry("endpoint", "metrics")
                .containsEntry("__metrics_path__", "/metrics")
                .containsEntry("__scrape_interval__", "30s");
        assertThat(flink.honorLabels()).isFalse();
        ScrapeDiscovery.Target rec = targets.get(1);
        assertThat(rec.labels()).containsEntry("job", NS + "/lineflow-reconciler");
        assertThat(rec.address()).endsWith(":8080");
        // The reconciler's `namespace` label is the FlinkDeployment's: it must win.
        assertThat(rec.honorLabels()).isTrue();
    }

    /**
     * The operator's pods come from its Helm chart, which only `make operator-install` renders: the
     * chart names the container port `metrics` when `metrics.port` is set and labels its pods
     * {@code app.kubernetes.io/name: flink-kubernetes-operator}. What lineflow itself decides is
     * held here: that port is the one the operator's Prometheus reporter listens on, in the
     * namespace the operator is installed in.
     */
    @Test
    void theOperatorsPodMonitorSelectsTheOperatorOnItsReporterPort() throws IOException {
        Map<String, Object> values =
                Serialization.unmarshal(Files.readString(REPO.resolve("operator-config/values.yaml")), Map.class);
        @SuppressWarnings("unchecked")
        int port = ((Number) ((Map<String, Object>) values.get("metrics")).get("port")).intValue();
        @SuppressWarnings("unchecked")
        String operatorConf =
                (String) ((Map<String, Object>) values.get("defaultConfiguration")).get("flink-conf.yaml");
        assertThat(operatorConf).contains("kubernetes.operator.metrics.reporter.prom.port: " + port);
        String operatorNs = Files.readAllLines(REPO.resolve("operator-config/chart.env")).stream()
                .filter(l -> l.startsWith("OPERATOR_NAMESPACE="))
                .map(l -> l.substring("OPERATOR_NAMESPACE=".length()))
                .findFirst()
                .orElseThrow();
        Pod operator = new PodBuilder()
                .withNewMetadata()
                .withName("flink-kubernetes-operator-0")
                .withNamespace(operatorNs)
                .withLabels(Map.of("app.kubernetes.io/name", "flink-kubernetes-operator"))
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("flink-kubernetes-operator")
                .addNewPort()
                .withName("metrics")
                .withContainerPort(port)
                .endPort()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP("10.244.0.7")
                .endStatus()
                .build();

        List<ScrapeDiscovery.Target> targets = ScrapeDiscovery.targets(
                List.of(monitor("manifests/monitoring/operator-podmonitor.yaml")), List.of(operator));

        assertThat(targets).hasSize(1);
        assertThat(targets.get(0).address()).isEqualTo("10.244.0.7:" + port);
        assertThat(targets.get(0).labels())
                .containsEntry("namespace", operatorNs)
                .containsEntry("job", NS + "/lineflow-flink-operator");
    }

    @Test
    void podsOutsideTheNamespaceNotRunningOrUnlabelledAreNotTargets() throws IOException {
        List<GenericKubernetesResource> monitors = List.of(monitor("manifests/monitoring/podmonitor.yaml"));
        PodTemplateSpec template = flinkTemplate();
        Pod elsewhere = new PodBuilder(pod("a", template, "Running"))
                .editMetadata()
                .withNamespace("other")
                .endMetadata()
                .build();
        Pod pending = pod("b", template, "Pending");
        Pod unlabelled = new PodBuilder(pod("c", template, "Running"))
                .editMetadata()
                .withLabels(Map.of("app.kubernetes.io/name", "lineflow"))
                .endMetadata()
                .build();

        assertThat(ScrapeDiscovery.targets(monitors, List.of(elsewhere, pending, unlabelled)))
                .isEmpty();
    }

    @Test
    void aSelectorItCannotTranslateIsRefusedNotGuessed() throws IOException {
        GenericKubernetesResource m = monitor("manifests/monitoring/podmonitor.yaml");
        @SuppressWarnings("unchecked")
        Map<String, Object> selector = (Map<String, Object>)
                ((Map<String, Object>) m.getAdditionalProperties().get("spec")).get("selector");
        selector.put("matchExpressions", List.of(Map.of("key", "x", "operator", "Exists")));

        assertThatThrownBy(() -> ScrapeDiscovery.targets(List.of(m), List.of()))
                .hasMessageContaining("matchExpressions");
    }

    @Test
    void aPrometheusRuleBecomesARuleFileWithItsGroups() throws IOException {
        GenericKubernetesResource rule = Serialization.unmarshal(
                Files.readString(REPO.resolve("manifests/monitoring/prometheusrule.yaml")),
                GenericKubernetesResource.class);

        String file = ScrapeDiscovery.ruleFile(rule);

        assertThat(file).startsWith("---\ngroups:").contains("alert: \"LineflowDuplicateConsumption\"");
    }

    private static GenericKubernetesResource monitor(String path) throws IOException {
        GenericKubernetesResource m =
                Serialization.unmarshal(Files.readString(REPO.resolve(path)), GenericKubernetesResource.class);
        m.getMetadata().setNamespace(NS);
        return m;
    }

    /** The FlinkDeployment's pod template (the operator adds its own labels to these). */
    private static PodTemplateSpec flinkTemplate() throws IOException {
        GenericKubernetesResource fd = Serialization.unmarshal(
                Files.readString(REPO.resolve("manifests/flink/flinkdeployment.yaml")),
                GenericKubernetesResource.class);
        @SuppressWarnings("unchecked")
        Object template = ((Map<String, Object>) fd.getAdditionalProperties().get("spec")).get("podTemplate");
        return Serialization.unmarshal(Serialization.asJson(template), PodTemplateSpec.class);
    }

    private static PodTemplateSpec reconcilerTemplate() throws IOException {
        return Serialization.unmarshal(
                        Files.readString(REPO.resolve("manifests/reconciler/deployment.yaml")), Deployment.class)
                .getSpec()
                .getTemplate();
    }

    private static Pod pod(String name, PodTemplateSpec template, String phase) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .withLabels(template.getMetadata().getLabels())
                .endMetadata()
                .withSpec(template.getSpec())
                .withNewStatus()
                .withPhase(phase)
                .withPodIP("10.244.0.9")
                .endStatus()
                .build();
    }
}
