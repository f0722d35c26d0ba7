package io.lineflow.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Multi-document YAML in, objects out; and the fields of one object that another lacks. */
final class Manifests {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final ObjectMapper JSON = new ObjectMapper();

    private Manifests() {}

    static List<ObjectNode> parse(String yaml) {
        List<ObjectNode> out = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(yaml)) {
            for (Iterator<JsonNode> it = YAML.readValues(parser, JsonNode.class); it.hasNext(); ) {
                JsonNode n = it.next();
                if (n instanceof ObjectNode o && o.has("kind")) {
                    out.add(o);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The objects kubectl printed with {@code -o json}: one object, or a List of them. */
    static List<ObjectNode> parseKubectlJson(String json) {
        try {
            JsonNode n = JSON.readTree(json);
            List<ObjectNode> out = new ArrayList<>();
            if ("List".equals(n.path("kind").asText())) {
                n.path("items").forEach(i -> out.add((ObjectNode) i));
            } else {
                out.add((ObjectNode) n);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String id(JsonNode o) {
        return o.path("kind").asText() + "/" + o.path("metadata").path("name").asText();
    }

    /**
     * Paths of {@code sent} that {@code stored} lacks: what the server pruned (a misspelt or
     * misplaced key of a custom resource) or dropped. Values may differ (defaulting, quantity
     * normalisation); only presence counts. Null values are not sent by kubectl and are skipped.
     */
    static List<String> missingPaths(JsonNode sent, JsonNode stored) {
        List<String> missing = new ArrayList<>();
        walk("", sent, stored, missing);
        return missing;
    }

    private static void walk(String path, JsonNode sent, JsonNode stored, List<String> missing) {
        if (sent.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = sent.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getValue().isNull()) {
                    continue;
                }
                String p = path + "." + e.getKey();
                JsonNode there = stored == null ? null : stored.get(e.getKey());
                if (there == null || there.isNull()) {
                    missing.add(p.substring(1));
                } else {
                    walk(p, e.getValue(), there, missing);
                }
            }
        } else if (sent.isArray()) {
            for (int i = 0; i < sent.size(); i++) {
                String p = path + "[" + i + "]";
                JsonNode there = stored == null || !stored.isArray() ? null : stored.get(i);
                if (there == null) {
                    missing.add(p.substring(1));
                } else {
                    walk(p, sent.get(i), there, missing);
                }
            }
        }
    }
}
