package io.lineflow.reconciler.controller;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;

/** /metrics, /healthz and /readyz answer from the suppliers they are given. */
class HealthServerTest {

    @Test
    void probesFollowLivenessAndReadinessAndMetricsAreServed() throws Exception {
        AtomicBoolean live = new AtomicBoolean(true);
        AtomicBoolean ready = new AtomicBoolean(false);
        try (HealthServer server =
                new HealthServer(0, () -> "lineflow_reconciler_passes_total 3\n", live::get, ready::get)) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            assertThat(get(http, base + "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(http, base + "/readyz").statusCode()).isEqualTo(503);
            ready.set(true);
            live.set(false);
            assertThat(get(http, base + "/readyz").statusCode()).isEqualTo(200);
            assertThat(get(http, base + "/healthz").statusCode()).isEqualTo(503);
            HttpResponse<String> metrics = get(http, base + "/metrics");
            assertThat(metrics.body()).contains("lineflow_reconciler_passes_total 3");
            assertThat(metrics.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
