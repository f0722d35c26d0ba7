package io.lineflow.reconciler.observe;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Jackson mix-in for the operator API's {@code AbstractFlinkSpec}: reads
 * {@code spec.flinkConfiguration} as the flat string map of the 1.10 API classes whatever its
 * shape. From operator 1.15 the CRD takes any YAML there (nested keys, numbers, booleans, lists,
 * as Flink's own {@code config.yaml}); the 1.10 classes would fail on the first nested key, and
 * with it the informer's list of every FlinkDeployment.
 */
abstract class FlatFlinkConfiguration {
    @JsonDeserialize(using = Deserializer.class)
    Map<String, String> flinkConfiguration;

    /** Nested keys joined with dots, scalars as their text, lists as Flink writes them (a;b). */
    static final class Deserializer extends JsonDeserializer<Map<String, String>> {
        @Override
        public Map<String, String> deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            JsonNode tree = p.readValueAsTree();
            Map<String, String> flat = new LinkedHashMap<>();
            flatten(tree, "", flat);
            return flat;
        }

        private static void flatten(JsonNode node, String key, Map<String, String> out) {
            if (node == null || node.isNull()) {
                return;
            }
            if (node.isObject()) {
                node.fields()
                        .forEachRemaining(
                                e -> flatten(e.getValue(), key.isEmpty() ? e.getKey() : key + "." + e.getKey(), out));
            } else if (node.isArray()) {
                List<String> items = new ArrayList<>();
                node.forEach(item -> items.add(item.asText()));
                out.put(key, String.join(";", items));
            } else {
                out.put(key, node.asText());
            }
        }
    }
}
