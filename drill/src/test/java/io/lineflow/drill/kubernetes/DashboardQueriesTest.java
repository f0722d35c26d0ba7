package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Scenario;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.kubernetes.DashboardQueries.Query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The shipped dashboard's queries and a small dashboard's, with the variables filled in from the
 * label values the test gives as Prometheus's.
 */
class DashboardQueriesTest {
    private static final Path SHIPPED =
            Path.of(System.getProperty("drill.repo", "..")).resolve("manifests/monitoring/dashboards/lineflow.json");

    @TempDir
    Path dir;

    /** Every label asked for, with the selector, in order. */
    private final List<String> asked = new ArrayList<>();

    /** Label values as Prometheus would give them, {@code values} by label. */
    private DashboardQueries.LabelValues prometheus(Map<String, List<String>> values) {
        return (label, match) -> {
            asked.add(label + " on " + match);
            return values.getOrDefault(label, List.of());
        };
    }

    /** A dashboard of {@code variables} (templating entries) and {@code panels}, as Grafana saves one. */
    private Path dashboard(String variables, String panels) throws IOException {
        Path file = dir.resolve("dashboard.json");
        Files.writeString(file, """
                {"title":"test","schemaVersion":39,
                 "templating":{"list":[%s]},
                 "panels":[%s]}""".formatted(variables, panels));
        return file;
    }

    private static final String DATASOURCE = """
            {"name":"datasource","type":"datasource","query":"prometheus"}""";

    @Test
    void everyQueryOfTheShippedDashboardWithTheFirstFlinkJobFilledIn() throws IOException {
        List<Query> queries =
                DashboardQueries.of(SHIPPED, prometheus(Map.of("job_name", List.of("lineflow", "canary"))));

        JsonNode shipped = new ObjectMapper().readTree(SHIPPED.toFile());
        assertThat(queries)
                .as("one per expr anywhere in the dashboard")
                .hasSameSizeAs(shipped.findValues("expr"))
                .isNotEmpty();
        assertThat(queries).extracting(Query::expr).noneMatch(e -> e.contains("$"));
        assertThat(queries)
                .filteredOn(q -> q.expr().contains("job_name="))
                .isNotEmpty()
                .allMatch(q -> q.expr().contains("job_name=\"lineflow\""));
        assertThat(queries.stream().map(Query::panel).distinct())
                .as("every panel with targets, in order")
                .containsExactlyElementsOf(shipped.findParents("targets").stream()
                        .map(p -> p.path("title").asText())
                        .toList());
        assertThat(asked).containsExactly("job_name on flink_jobmanager_job_uptime");
    }

    @Test
    void eachTargetIsItsPanelsWithBothFormsOfAVariableFilledIn() throws IOException {
        Path file = dashboard(DATASOURCE + ",\n" + """
                {"name":"ns","type":"query","query":"label_values( kube_pod_info{pod=~\\"flink.*\\"} , namespace )"}""", """
                {"type":"timeseries","title":"Restarts","targets":[
                  {"expr":"max(flink_jobmanager_job_numRestarts{namespace=\\"$ns\\"})","refId":"A"},
                  {"expr":"","refId":"B"},
                  {"refId":"C"}]},
                {"type":"text","title":"Notes"},
                {"type":"timeseries","title":"Lag","targets":[
                  {"expr":"sum(rate(x{namespace=\\"${ns}\\"}[5m]))","refId":"A"}]}""");

        assertThat(DashboardQueries.of(file, prometheus(Map.of("namespace", List.of("lineflow")))))
                .containsExactly(
                        new Query("Restarts", "max(flink_jobmanager_job_numRestarts{namespace=\"lineflow\"})"),
                        new Query("Lag", "sum(rate(x{namespace=\"lineflow\"}[5m]))"));
        assertThat(asked).containsExactly("namespace on kube_pod_info{pod=~\"flink.*\"}");
    }

    @Test
    void aVariableIsKnownByItsWholeNameNotByTheStartOfALongerOne() throws IOException {
        Path file = dashboard("""
                {"name":"job","type":"query","query":"label_values(flink_jobmanager_job_uptime, job_name)"},
                {"name":"job_id","type":"query","query":"label_values(flink_jobmanager_job_uptime, job_id)"}""", """
                {"title":"Uptime","targets":[
                  {"expr":"max(flink_jobmanager_job_uptime{job_name=\\"$job\\", job_id=\\"$job_id\\"}[$__rate_interval])"}]}""");

        assertThat(DashboardQueries.of(
                        file, prometheus(Map.of("job_name", List.of("lineflow"), "job_id", List.of("8f2c")))))
                .extracting(Query::expr)
                .containsExactly(
                        "max(flink_jobmanager_job_uptime{job_name=\"lineflow\", job_id=\"8f2c\"}[$__rate_interval])");
    }

    @Test
    void thePanelsOfACollapsedRowAreQueriedToo() throws IOException {
        Path file = dashboard("", """
                {"type":"timeseries","title":"Restarts","targets":[{"expr":"max(flink_jobmanager_job_numRestarts)"}]},
                {"type":"row","title":"More","collapsed":true,"panels":[
                  {"type":"timeseries","title":"Lag","targets":[{"expr":"sum(flink_taskmanager_job_task_operator_pendingRecords)"}]}]}""");

        assertThat(DashboardQueries.of(file, prometheus(Map.of())))
                .containsExactly(
                        new Query("Restarts", "max(flink_jobmanager_job_numRestarts)"),
                        new Query("Lag", "sum(flink_taskmanager_job_task_operator_pendingRecords)"));
    }

    @Test
    void aVariableWithoutValuesIsFilledInEmptyAsGrafanaWould() throws IOException {
        Path file = dashboard("""
                {"name":"job","type":"query","query":"label_values(flink_jobmanager_job_uptime, job_name)"}""", """
                {"title":"Restarts","targets":[{"expr":"max(up{job_name=\\"$job\\"})"}]}""");

        assertThat(DashboardQueries.of(file, prometheus(Map.of("job_name", List.of()))))
                .containsExactly(new Query("Restarts", "max(up{job_name=\"\"})"));
    }

    @Test
    void aQueryVariableOtherThanLabelValuesIsRefusedByName() throws IOException {
        Path file = dashboard("""
                {"name":"job","type":"query","query":"query_result(up)"}""", "");

        assertThatThrownBy(() -> DashboardQueries.of(file, prometheus(Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dashboard variable job: only label_values(metric, label) is understood, found"
                        + " \"query_result(up)\"");
        assertThat(asked).isEmpty();
    }

    @Test
    void theDashboardCheckWantsASeriesFromEveryQueryAndChartsTheReportsSeries() throws IOException {
        try (TestingHttpServer server = new TestingHttpServer()) {
            server.on("/api/v1/label/job_name/values", """
                    {"status":"success","data":["lineflow"]}""");
            server.on("/api/v1/query", """
                    {"status":"success","data":{"resultType":"vector","result":[]}}""");
            server.on("/api/v1/query_range", """
                    {"status":"success","data":{"resultType":"matrix","result":[{"metric":{},\
                    "values":[[1700000000.500,"1"],[1700000015.500,"2"]]}]}}""");
            List<String> log = new ArrayList<>();
            DashboardCheck check =
                    new DashboardCheck(new PrometheusApi(server.uri(), server.uri()), SHIPPED, Duration.ZERO, log::add);
            int queries = DashboardQueries.of(SHIPPED, prometheus(Map.of("job_name", List.of("lineflow"))))
                    .size();
            ScenarioResult result = new ScenarioResult(new Scenario("kubernetes:steady", false, false));

            check.answers(result);
            assertThat(result.problems)
                    .hasSize(queries)
                    .allMatch(p -> p.startsWith("DASHBOARD '") && p.contains("' returns no series: "));

            result.problems.clear();
            result.monitoring.clear();
            server.on("/api/v1/query", """
                    {"status":"success","data":{"resultType":"vector","result":[\
                    {"metric":{"job_name":"lineflow"},"value":[1700000000,"0.25"]}]}}""");
            check.answers(result);
            assertThat(result.problems).isEmpty();
            assertThat(result.monitoring).hasSize(queries).allMatch(m -> m.endsWith(" = [0.250]"));

            check.chart(result, 1_700_000_000_000L, 1_700_000_030_000L);
            assertThat(result.startedAt).isEqualTo(1_700_000_000_000L);
            assertThat(result.series.keySet()).containsExactlyElementsOf(DashboardCheck.SERIES.keySet());
            assertThat(result.series.values()).allMatch(points -> points.size() == 2);
        }
    }
}
