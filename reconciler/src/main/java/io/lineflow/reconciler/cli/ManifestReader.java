package io.lineflow.reconciler.cli;

import io.lineflow.reconciler.observe.OperatorClient;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/** Reads FlinkDeployments out of rendered multi-document YAML (e.g. `kustomize build` output). */
public final class ManifestReader {

    private static final ObjectMapper YAML =
            new ObjectMapper(new YAMLFactory()).configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /**
     * The reconciler's own reading of a FlinkDeployment ({@link OperatorClient#serialization}), so
     * that the GitOps gate reads what the in-cluster reconciler reads: a {@code flinkVersion} newer
     * than this build's operator API ({@code v2_2}) too.
     */
    private static final KubernetesSerialization SERIALIZATION = OperatorClient.serialization();

    private ManifestReader() {}

    public static List<FlinkDeployment> read(InputStream in) throws IOException {
        List<FlinkDeployment> out = new ArrayList<>();
        try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(in)) {
            while (docs.hasNextValue()) {
                collect(docs.nextValue(), out);
            }
        }
        return out;
    }

    private static void collect(JsonNode doc, List<FlinkDeployment> out) throws IOException {
        if (doc == null || !doc.isObject()) {
            return;
        }
        String kind = doc.path("kind").asText("");
        if (kind.endsWith("List") && doc.path("items").isArray()) {
            for (JsonNode item : doc.path("items")) {
                collect(item, out);
            }
            return;
        }
        if (kind.equals("FlinkDeployment") && doc.path("apiVersion").asText("").startsWith("flink.apache.org/")) {
            try {
                out.add(SERIALIZATION.convertValue(doc, FlinkDeployment.class));
            } catch (IllegalArgumentException e) {
                throw new IOException(
                        "FlinkDeployment " + doc.path("metadata").path("name").asText("?")
                                + " does not match the operator's schema: " + e.getMessage(),
                        e);
            }
        }
    }
}
