package io.lineflow.deploy;

import io.lineflow.testing.OperatorCrds;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strict offline schemas for every kind lineflow renders.
 *
 * <p>Core kinds come from Kubernetes' own OpenAPI document (swagger.json, fetched by
 * scripts/k8s-openapi.sh); FlinkDeployment from the CRD of the operator release lineflow installs
 * (operator-config/chart.env), extracted from its source release by scripts/operator-crds.sh. Both
 * are made strict the way a careful API server review would be: an object that declares its properties
 * accepts no others, so a misspelt key fails instead of being silently pruned by the API server.
 * IntOrString and Quantity accept strings and numbers, as the API server does.
 */
final class KubeSchemas {
    private static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** Kinds no schema is available for offline; callers check them by other means. */
    static final Set<String> WITHOUT_SCHEMA =
            Set.of("monitoring.coreos.com/v1/PodMonitor", "monitoring.coreos.com/v1/PrometheusRule");

    private final Map<String, JsonSchema> byApiVersionKind = new HashMap<>();

    private KubeSchemas() {}

    static KubeSchemas load() {
        try {
            if (!Files.exists(Repo.OPENAPI)) {
                throw new IllegalStateException(Repo.OPENAPI
                        + " is missing: run scripts/k8s-openapi.sh (Maven does so in" + " generate-test-resources)");
            }
            ObjectMapper json = new ObjectMapper();
            JsonNode swagger = json.readTree(Repo.OPENAPI.toFile());
            ObjectNode definitions = (ObjectNode) swagger.path("definitions").deepCopy();
            Map<String, String> gvkToDefinition = new HashMap<>();
            definitions.fields().forEachRemaining(e -> {
                for (JsonNode gvk : e.getValue().path("x-kubernetes-group-version-kind")) {
                    gvkToDefinition.put(apiVersionKind(gvk), e.getKey());
                }
            });
            relaxIntOrStringAndQuantity(definitions);
            definitions.forEach(KubeSchemas::strict);

            KubeSchemas schemas = new KubeSchemas();
            JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4);
            SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().build();
            for (Map.Entry<String, String> e : gvkToDefinition.entrySet()) {
                ObjectNode root = F.objectNode();
                root.put("$ref", "#/definitions/" + e.getValue());
                root.set("definitions", definitions);
                schemas.byApiVersionKind.put(e.getKey(), factory.getSchema(root, config));
            }

            String operator = OperatorVersionTest.chartEnv().get("OPERATOR_CHART_VERSION");
            ObjectNode crd = flinkDeploymentSchema(flinkDeploymentCrd(Repo.OPERATOR_CRDS, operator), definitions);
            schemas.byApiVersionKind.put("flink.apache.org/v1beta1/FlinkDeployment", factory.getSchema(crd, config));
            return schemas;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The FlinkDeployment CRD of operator release {@code version} as scripts/operator-crds.sh
     * extracts it into {@code dir}; fails naming the file and how to get it when it is not there.
     */
    static Path flinkDeploymentCrd(Path dir, String version) {
        return OperatorCrds.of(dir, version).resolve(OperatorCrds.FLINK_DEPLOYMENT);
    }

    /** The CRD's openAPIV3Schema made strict, with metadata checked as a real ObjectMeta. */
    static ObjectNode flinkDeploymentSchema(Path crdFile, ObjectNode definitions) throws IOException {
        JsonNode crdDoc = Rendered.YAML.readTree(crdFile.toFile());
        JsonNode version = null;
        for (JsonNode v : crdDoc.at("/spec/versions")) {
            if (v.path("name").asText().equals("v1beta1")) {
                version = v;
            }
        }
        if (version == null) {
            throw new IllegalStateException(crdFile + " has no version v1beta1");
        }
        ObjectNode schema = (ObjectNode) version.at("/schema/openAPIV3Schema").deepCopy();
        strict(schema);
        ObjectNode props = (ObjectNode) schema.get("properties");
        props.set(
                "apiVersion",
                F.objectNode().put("type", "string").set("enum", F.arrayNode().add("flink.apache.org/v1beta1")));
        props.set(
                "kind",
                F.objectNode().put("type", "string").set("enum", F.arrayNode().add("FlinkDeployment")));
        props.set("metadata", F.objectNode().put("$ref", "#/definitions/" + OBJECT_META));
        schema.set("definitions", definitions);
        return schema;
    }

    /**
     * Adds {@code additionalProperties: false} wherever an object lists its properties and neither
     * allows unknown fields ({@code x-kubernetes-preserve-unknown-fields}) nor declares a map type.
     * Drops {@code format} (int32, byte, … are not checked by the API server's structural schema
     * either) and documentation to keep the validator lean.
     */
    static void strict(JsonNode node) {
        if (node instanceof ObjectNode o
                && o.has("properties")
                && o.get("properties").isObject()) {
            // A properties map: its keys are field names, not keywords; only its values are schemas.
            o.get("properties").forEach(KubeSchemas::strict);
        }
        strictKeywords(node);
    }

    private static void strictKeywords(JsonNode node) {
        if (node instanceof ObjectNode o) {
            o.remove("description");
            if (o.has("format") && o.get("format").isTextual()) {
                o.remove("format");
            }
            if (o.has("properties")
                    && o.get("properties").isObject()
                    && !o.has("additionalProperties")
                    && !o.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
                o.put("additionalProperties", false);
            }
            List<String> vendorKeys = new ArrayList<>();
            o.fieldNames().forEachRemaining(k -> {
                if (k.startsWith("x-kubernetes-")) {
                    vendorKeys.add(k);
                }
            });
            vendorKeys.forEach(o::remove);
            o.fields().forEachRemaining(e -> {
                if (!e.getKey().equals("properties")) {
                    recurse(e.getValue());
                }
            });
        }
    }

    private static void recurse(JsonNode value) {
        if (value instanceof ObjectNode) {
            strict(value);
        } else if (value instanceof ArrayNode a) {
            a.forEach(KubeSchemas::recurse);
        }
    }

    private static void relaxIntOrStringAndQuantity(ObjectNode definitions) {
        ArrayNode stringOrNumber = F.arrayNode().add("string").add("integer").add("number");
        definitions.set(
                "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                F.objectNode().set("type", stringOrNumber.deepCopy()));
        definitions.set(
                "io.k8s.apimachinery.pkg.api.resource.Quantity", F.objectNode().set("type", stringOrNumber.deepCopy()));
    }

    private static String apiVersionKind(JsonNode gvk) {
        String group = gvk.path("group").asText();
        String version = gvk.path("version").asText();
        return (group.isEmpty() ? version : group + "/" + version) + "/"
                + gvk.path("kind").asText();
    }

    static String apiVersionKindOf(JsonNode object) {
        return object.path("apiVersion").asText() + "/" + object.path("kind").asText();
    }

    boolean hasSchema(JsonNode object) {
        return byApiVersionKind.containsKey(apiVersionKindOf(object));
    }

    /** Problems with one object, each prefixed with the object's kind/name; empty when valid. */
    List<String> validate(JsonNode object) {
        String key = apiVersionKindOf(object);
        String id = Rendered.id(object);
        JsonSchema schema = byApiVersionKind.get(key);
        if (schema == null) {
            return WITHOUT_SCHEMA.contains(key)
                    ? List.of()
                    : List.of(id + ": no schema for " + key + " (misspelt apiVersion or kind?)");
        }
        List<String> problems = new ArrayList<>();
        for (ValidationMessage m : schema.validate(object)) {
            problems.add(id + ": " + m.getMessage());
        }
        problems.sort(null);
        return problems;
    }
}
