package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.TimeChart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the drill asks the e2e Prometheus and Alertmanager: an instant query's series, a label's
 * values, and the alerts the Alertmanager holds as active (firing, neither silenced nor
 * inhibited).
 */
public final class PrometheusApi {
    /** One series of an instant query: its labels and its value. */
    public record Series(Map<String, String> labels, double value) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI prometheus;
    private final URI alertmanager;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public PrometheusApi(URI prometheus, URI alertmanager) {
        this.prometheus = prometheus;
        this.alertmanager = alertmanager;
    }

    /** {@code expr} evaluated now; an empty list when it selects nothing. */
    public List<Series> query(String expr) {
        JsonNode data = data(get(prometheus, "/api/v1/query?query=" + encode(expr)), expr);
        List<Series> out = new ArrayList<>();
        JsonNode result = data.path("result");
        if ("scalar".equals(data.path("resultType").asText())) {
            out.add(new Series(Map.of(), value(result.get(1).asText())));
            return out;
        }
        for (JsonNode s : result) {
            Map<String, String> labels = new TreeMap<>();
            s.path("metric")
                    .fields()
                    .forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
            out.add(new Series(labels, value(s.path("value").get(1).asText())));
        }
        return out;
    }

    /**
     * {@code expr} from {@code from} to {@code to} (epoch ms) every {@code step}: the first
     * series' points (the drill's expressions aggregate to one), empty when it selects nothing.
     */
    public List<TimeChart.Point> range(String expr, long from, long to, Duration step) {
        JsonNode data = data(
                get(
                        prometheus,
                        "/api/v1/query_range?query=" + encode(expr) + "&start=" + from / 1000.0 + "&end=" + to / 1000.0
                                + "&step=" + step.toSeconds()),
                expr);
        List<TimeChart.Point> out = new ArrayList<>();
        JsonNode result = data.path("result");
        if (result.isEmpty()) {
            return out;
        }
        for (JsonNode v : result.get(0).path("values")) {
            out.add(new TimeChart.Point(
                    Math.round(v.get(0).asDouble() * 1000), value(v.get(1).asText())));
        }
        return out;
    }

    /** The values label {@code label} takes on the series {@code match} selects. */
    public List<String> labelValues(String label, String match) {
        JsonNode data = data(
                get(prometheus, "/api/v1/label/" + encode(label) + "/values?match[]=" + encode(match)),
                label + " of " + match);
        List<String> out = new ArrayList<>();
        data.forEach(v -> out.add(v.asText()));
        return out;
    }

    /** The names of the alerts the Alertmanager holds active now. */
    public Set<String> firing() {
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode a : parse(get(alertmanager, "/api/v2/alerts?active=true&silenced=false&inhibited=false"))) {
            if ("active".equals(a.path("status").path("state").asText())) {
                out.add(a.path("labels").path("alertname").asText());
            }
        }
        return out;
    }

    /**
     * A sample value as Prometheus writes it: Go's formatting, whose infinities ({@code +Inf},
     * {@code -Inf}) Java's parser does not read; a division by zero in a query gives one.
     */
    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    private static JsonNode data(String body, String what) {
        JsonNode root = parse(body);
        if (!"success".equals(root.path("status").asText())) {
            throw new IllegalStateException("Prometheus could not answer " + what + ": "
                    + root.path("error").asText());
        }
        return root.path("data");
    }

    private String get(URI base, String pathAndQuery) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(
                        "GET " + base + pathAndQuery + ": HTTP " + r.statusCode() + " " + r.body());
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + base + pathAndQuery, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
