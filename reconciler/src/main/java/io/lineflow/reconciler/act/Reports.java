package io.lineflow.reconciler.act;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.HealthResult;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** JSON and table renderings of health results, shared by the summary ConfigMap and the CLI. */
public final class Reports {

    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Reports() {}

    /** One deployment's result as a JSON object. */
    public static ObjectNode toJson(String namespace, String name, HealthResult result, Instant observedAt) {
        ObjectNode n = JSON.createObjectNode();
        if (namespace != null) {
            n.put("namespace", namespace);
        }
        n.put("name", name);
        n.put("status", result.status().name());
        n.put("worstSeverity", result.worst().map(Enum::name).orElse("NONE"));
        if (observedAt != null) {
            n.put("observedAt", observedAt.toString());
        }
        ArrayNode arr = n.putArray("findings");
        for (Finding f : result.findings()) {
            ObjectNode fn = arr.addObject();
            fn.put("code", f.code().name());
            fn.put("severity", f.severity().name());
            fn.put("message", f.message());
            fn.set("evidence", JSON.valueToTree(f.evidence()));
        }
        return n;
    }

    public static String write(Object node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A plain-text table: one line per finding, the message wrapped under it. */
    public static String table(List<Map.Entry<String, HealthResult>> results) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%-40s %-10s %-9s %s%n", "DEPLOYMENT", "STATUS", "SEVERITY", "CODE"));
        for (Map.Entry<String, HealthResult> e : results) {
            HealthResult r = e.getValue();
            if (r.findings().isEmpty()) {
                sb.append(String.format("%-40s %-10s %-9s %s%n", e.getKey(), r.status(), "-", "-"));
                continue;
            }
            for (Finding f : r.findings()) {
                sb.append(String.format("%-40s %-10s %-9s %s%n", e.getKey(), r.status(), f.severity(), f.code()));
                sb.append("    ").append(f.message()).append(System.lineSeparator());
                if (!f.evidence().isEmpty()) {
                    sb.append("    evidence: ").append(f.evidence()).append(System.lineSeparator());
                }
            }
        }
        return sb.toString();
    }
}
