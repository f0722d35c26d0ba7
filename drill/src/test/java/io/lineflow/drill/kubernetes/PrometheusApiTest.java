package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.TimeChart;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the drill asks Prometheus and the Alertmanager and how it reads their answers, served on
 * loopback. The answers are as Prometheus 2.42.0 and Alertmanager 0.25.0 (the Debian packages) gave
 * them to the same requests, recorded with curl.
 */
class PrometheusApiTest {
    /** An address on which nothing listens. */
    private static final URI NOBODY = URI.create("http://127.0.0.1:1");

    /**
     * {@code GET /api/v2/alerts} with no filter: two active alerts and a silenced one, which is
     * {@code suppressed}.
     */
    static final String ALERTS = """
            [{"annotations":{},"endsAt":"2026-12-03T20:57:29.000Z","fingerprint":"083971a33bac9696",\
            "receivers":[{"name":"none"}],"startsAt":"2026-12-03T19:57:29.000Z",\
            "status":{"inhibitedBy":[],"silencedBy":[],"state":"active"},"updatedAt":"2026-12-03T19:57:29.348Z",\
            "labels":{"alertname":"LineflowCheckpointsFailing","namespace":"lineflow","severity":"critical"}},\
            {"annotations":{},"endsAt":"2026-12-03T20:57:29.000Z","fingerprint":"448881ef475b9b26",\
            "receivers":[{"name":"none"}],"startsAt":"2026-12-03T19:57:29.000Z",\
            "status":{"inhibitedBy":[],"silencedBy":["52c1a73b-bdf5-4d2b-bb1d-3c042d6ec4f3"],"state":"suppressed"},\
            "updatedAt":"2026-12-03T19:57:29.348Z","labels":{"alertname":"Watchdog","severity":"none"}},\
            {"annotations":{"summary":"the job restarted"},"endsAt":"2026-12-03T20:57:29.000Z",\
            "fingerprint":"f3dccd529886b5f7","receivers":[{"name":"none"}],"startsAt":"2026-12-03T19:57:29.000Z",\
            "status":{"inhibitedBy":[],"silencedBy":[],"state":"active"},"updatedAt":"2026-12-03T19:57:29.348Z",\
            "generatorURL":"http://prometheus:9090/graph?g0.expr=x",\
            "labels":{"alertname":"LineflowJobRestarted","namespace":"lineflow","severity":"warning"}}]""";

    private TestingHttpServer server;
    private PrometheusApi api;

    @BeforeEach
    void serve() throws IOException {
        server = new TestingHttpServer();
        api = new PrometheusApi(server.uri(), server.uri());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void anInstantQueryIsSentWholeAndEachSeriesReadWithItsLabels() {
        String expr = "sum by (job, instance) (up{job=~\"prom.*|x\"}) + 0 # a comment";
        server.on("/api/v1/query", """
                {"status":"success","data":{"resultType":"vector","result":[\
                {"metric":{"instance":"127.0.0.1:19490","job":"prometheus"},"value":[1796327849.329,"1"]},\
                {"metric":{"instance":"127.0.0.1:19491","job":"x"},"value":[1796327849.329,"0.25"]}]}}""");

        List<PrometheusApi.Series> series = api.query(expr);

        assertThat(series)
                .containsExactly(
                        new PrometheusApi.Series(Map.of("instance", "127.0.0.1:19490", "job", "prometheus"), 1.0),
                        new PrometheusApi.Series(Map.of("instance", "127.0.0.1:19491", "job", "x"), 0.25));
        assertThat(server.asked()).containsExactly("/api/v1/query");
        assertThat(server.parameters())
                .as("the '+' and the '#' reach Prometheus as written")
                .containsExactly(Map.of("query", expr));
    }

    @Test
    void aScalarIsOneSeriesWithoutLabels() {
        server.on("/api/v1/query", """
                {"status":"success","data":{"resultType":"scalar","result":[1700000000,"42.5"]}}""");

        assertThat(api.query("time() - 1796327807")).containsExactly(new PrometheusApi.Series(Map.of(), 42.5));
    }

    @Test
    void infinitiesAndNotANumberAreReadAsPrometheusWritesThem() {
        server.on("/api/v1/query", """
                {"status":"success","data":{"resultType":"vector","result":[\
                {"metric":{"job_name":"lineflow"},"value":[1700000000,"-Inf"]},\
                {"metric":{"job_name":"other"},"value":[1700000000,"NaN"]}]}}""");
        assertThat(api.query("x / 0"))
                .extracting(PrometheusApi.Series::value)
                .containsExactly(Double.NEGATIVE_INFINITY, Double.NaN);

        server.on("/api/v1/query", """
                {"status":"success","data":{"resultType":"scalar","result":[1700000000,"+Inf"]}}""");
        assertThat(api.query("1/0")).containsExactly(new PrometheusApi.Series(Map.of(), Double.POSITIVE_INFINITY));

        server.on("/api/v1/query_range", """
                {"status":"success","data":{"resultType":"matrix","result":[{"metric":{},\
                "values":[[1700000000.500,"+Inf"],[1700000015.500,"2"]]}]}}""");
        assertThat(api.range("vector(1)/0", 1_700_000_000_500L, 1_700_000_015_500L, Duration.ofSeconds(15)))
                .containsExactly(
                        new TimeChart.Point(1_700_000_000_500L, Double.POSITIVE_INFINITY),
                        new TimeChart.Point(1_700_000_015_500L, 2));
    }

    @Test
    void aQueryThatSelectsNothingIsAnEmptyList() {
        server.on("/api/v1/query", """
                {"status":"success","data":{"resultType":"vector","result":[]}}""");

        assertThat(api.query("up{job=\"nothing\"}")).isEmpty();
    }

    @Test
    void aQueryPrometheusRejectsFailsWithPrometheusesReason() {
        server.on("/api/v1/query", 400, """
                {"status":"error","errorType":"bad_data",\
                "error":"invalid parameter \\"query\\": 1:13: parse error: missing unit character in duration"}""");

        assertThatThrownBy(() -> api.query("sum(rate(up[1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("HTTP 400")
                .hasMessageContaining("parse error: missing unit character in duration");
    }

    @Test
    void aRangeAsksForItsSpanInSecondsAndReadsTheFirstSeriesPoints() {
        server.on("/api/v1/query_range", """
                {"status":"success","data":{"resultType":"matrix","result":[\
                {"metric":{},"values":[[1700000000.500,"3"],[1700000015.500,"4.25"],[1700000030.500,"0"]]},\
                {"metric":{"job":"other"},"values":[[1700000000.500,"99"]]}]}}""");

        List<TimeChart.Point> points =
                api.range("sum(up)", 1_700_000_000_500L, 1_700_000_030_500L, Duration.ofSeconds(15));

        assertThat(points)
                .containsExactly(
                        new TimeChart.Point(1_700_000_000_500L, 3),
                        new TimeChart.Point(1_700_000_015_500L, 4.25),
                        new TimeChart.Point(1_700_000_030_500L, 0));
        Map<String, String> asked = server.parameters().get(0);
        assertThat(asked.get("query")).isEqualTo("sum(up)");
        assertThat(Double.parseDouble(asked.get("start"))).isEqualTo(1_700_000_000.5);
        assertThat(Double.parseDouble(asked.get("end"))).isEqualTo(1_700_000_030.5);
        assertThat(asked.get("step")).isEqualTo("15");
    }

    @Test
    void aRangeThatSelectsNothingIsEmpty() {
        server.on("/api/v1/query_range", """
                {"status":"success","data":{"resultType":"matrix","result":[]}}""");

        assertThat(api.range("up{job=\"nothing\"}", 1_700_000_000_000L, 1_700_000_060_000L, Duration.ofSeconds(15)))
                .isEmpty();
    }

    @Test
    void aLabelsValuesAreAskedOnTheSeriesTheMatcherSelects() {
        server.on("/api/v1/label/job_name/values", """
                {"status":"success","data":["lineflow","other"]}""");

        assertThat(api.labelValues("job_name", "flink_jobmanager_job_uptime{namespace=\"lineflow\"}"))
                .containsExactly("lineflow", "other");
        assertThat(server.asked()).containsExactly("/api/v1/label/job_name/values");
        assertThat(server.parameters())
                .containsExactly(Map.of("match[]", "flink_jobmanager_job_uptime{namespace=\"lineflow\"}"));
    }

    @Test
    void firingIsTheNamesOfTheActiveAlertsNotOfASilencedOne() {
        server.on("/api/v2/alerts", ALERTS);

        assertThat(api.firing()).containsExactly("LineflowCheckpointsFailing", "LineflowJobRestarted");
        assertThat(server.asked()).containsExactly("/api/v2/alerts");
        assertThat(server.parameters())
                .as("the Alertmanager leaves out the silenced and inhibited ones itself")
                .containsExactly(Map.of("active", "true", "silenced", "false", "inhibited", "false"));

        server.on("/api/v2/alerts", "[]");
        assertThat(api.firing()).isEmpty();
    }

    @Test
    void anAlertmanagerThatDoesNotAnswerIsAnErrorNamingTheRequest() {
        PrometheusApi nobody = new PrometheusApi(NOBODY, NOBODY);

        assertThatThrownBy(nobody::firing)
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("GET http://127.0.0.1:1/api/v2/alerts?active=true");
    }
}
