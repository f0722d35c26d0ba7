package io.lineflow.drill.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shipped Grafana dashboard's queries, as Grafana would send them: every panel target's
 * {@code expr} (a collapsed row's panels' too) with the dashboard's query variables filled in
 * ({@code label_values(metric, label)}, the first value Prometheus has, as Grafana preselects it).
 */
final class DashboardQueries {
    /** One panel query: the panel's title and the expression with its variables filled in. */
    record Query(String panel, String expr) {}

    /** A variable as Grafana finds one in an expression: {@code ${name}} or {@code $name}, the longest name. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)}|\\$(\\w+)");

    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([^,]+?)\\s*,\\s*(\\w+)\\s*\\)");

    /** Where a variable's values come from: {@link PrometheusApi#labelValues}. */
    interface LabelValues {
        /** The values {@code label} takes on the series {@code match} selects. */
        List<String> of(String label, String match);
    }

    private DashboardQueries() {}

    /** The queries of {@code dashboard}, variables resolved through {@code prometheus}. */
    static List<Query> of(Path dashboard, LabelValues prometheus) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(dashboard.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("reading the dashboard " + dashboard, e);
        }
        Map<String, String> variables = new LinkedHashMap<>();
        for (JsonNode v : root.path("templating").path("list")) {
            if (!"query".equals(v.path("type").asText())) {
                continue;
            }
            Matcher m = LABEL_VALUES.matcher(v.path("query").asText());
            if (!m.matches()) {
                throw new IllegalArgumentException(
                        "dashboard variable " + v.path("name").asText()
                                + ": only label_values(metric, label) is understood, found " + v.path("query"));
            }
            List<String> values = prometheus.of(m.group(2), m.group(1));
            variables.put(v.path("name").asText(), values.isEmpty() ? "" : values.get(0));
        }
        List<Query> out = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            add(panel, variables, out);
            // A collapsed row keeps its panels inside it.
            for (JsonNode inner : panel.path("panels")) {
                add(inner, variables, out);
            }
        }
        return out;
    }

    private static void add(JsonNode panel, Map<String, String> variables, List<Query> out) {
        for (JsonNode target : panel.path("targets")) {
            String expr = target.path("expr").asText();
            if (!expr.isEmpty()) {
                out.add(new Query(panel.path("title").asText(), fill(expr, variables)));
            }
        }
    }

    /** {@code expr} with each variable replaced by its value; one it does not know is left as it is. */
    private static String fill(String expr, Map<String, String> variables) {
        return VARIABLE.matcher(expr).replaceAll(m -> {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            return Matcher.quoteReplacement(variables.getOrDefault(name, m.group()));
        });
    }
}
