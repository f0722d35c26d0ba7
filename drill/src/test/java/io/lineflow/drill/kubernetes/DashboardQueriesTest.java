package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.kubernetes.DashboardQueries.Query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The shipped dashboard's queries and a small dashboard's, with the variables filled in from the
 * label values a Prometheus served on loopback answers.
 */
class DashboardQueriesTest {
    private static final Path SHIPPED =
            Path.of(System.getProperty("drill.repo", "..")).resolve("manifests/monitoring/dashboards/lineflow.json");

    @TempDir
    Path dir;

    private TestingHttpServer prometheus;
    private PrometheusApi api;

    @BeforeEach
    void serve() throws IOException {
        prometheus = new TestingHttpServer();
        api = new PrometheusApi(prometheus.uri(), prometheus.uri());
    }

    @AfterEach
    void stop() {
        prometheus.close();
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
        prometheus.on("/api/v1/label/job_name/values", """
                {"status":"success","data":["lineflow","canary"]}""");

        List<Query> queries = DashboardQueries.of(SHIPPED, api);

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
        assertThat(prometheus.asked()).containsExactly("/api/v1/label/job_name/values");
        assertThat(prometheus.parameters()).containsExactly(Map.of("match[]", "flink_jobmanager_job_uptime"));
    }

    @Test
    void eachTargetIsItsPanelsWithBothFormsOfAVariableFilledIn() throws IOException {
        prometheus.on("/api/v1/label/namespace/values", """
                {"status":"success","data":["lineflow"]}""");
        Path file = dashboard(DATASOURCE + ",\n" + """
                {"name":"ns","type":"query","query":"label_values( kube_pod_info{pod=~\\"flink.*\\"} , namespace )"}""", """
                {"type":"timeseries","title":"Restarts","targets":[
                  {"expr":"max(flink_jobmanager_job_numRestarts{namespace=\\"$ns\\"})","refId":"A"},
                  {"expr":"","refId":"B"},
                  {"refId":"C"}]},
                {"type":"text","title":"Notes"},
                {"type":"timeseries","title":"Lag","targets":[
                  {"expr":"sum(rate(x{namespace=\\"${ns}\\"}[5m]))","refId":"A"}]}""");

        assertThat(DashboardQueries.of(file, api))
                .containsExactly(
                        new Query("Restarts", "max(flink_jobmanager_job_numRestarts{namespace=\"lineflow\"})"),
                        new Query("Lag", "sum(rate(x{namespace=\"lineflow\"}[5m]))"));
        assertThat(prometheus.parameters()).containsExactly(Map.of("match[]", "kube_pod_info{pod=~\"flink.*\"}"));
    }

    @Test
    void aVariableIsKnownByItsWholeNameNotByTheStartOfALongerOne() throws IOException {
        prometheus.on("/api/v1/label/job_name/values", """
                {"status":"success","data":["lineflow"]}""");
        prometheus.on("/api/v1/label/job_id/values", """
                {"status":"success","data":["8f2c"]}""");
        Path file = dashboard("""
                {"name":"job","type":"query","query":"label_values(flink_jobmanager_job_uptime, job_name)"},
                {"name":"job_id","type":"query","query":"label_values(flink_jobmanager_job_uptime, job_id)"}""", """
                {"title":"Uptime","targets":[
                  {"expr":"max(flink_jobmanager_job_uptime{job_name=\\"$job\\", job_id=\\"$job_id\\"}[$__rate_interval])"}]}""");

        assertThat(DashboardQueries.of(file, api))
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

        assertThat(DashboardQueries.of(file, api))
                .containsExactly(
                        new Query("Restarts", "max(flink_jobmanager_job_numRestarts)"),
                        new Query("Lag", "sum(flink_taskmanager_job_task_operator_pendingRecords)"));
    }

    @Test
    void aVariableWithoutValuesIsFilledInEmptyAsGrafanaWould() throws IOException {
        prometheus.on("/api/v1/label/job_name/values", """
                {"status":"success","data":[]}""");
        Path file = dashboard("""
                {"name":"job","type":"query","query":"label_values(flink_jobmanager_job_uptime, job_name)"}""", """
                {"title":"Restarts","targets":[{"expr":"max(up{job_name=\\"$job\\"})"}]}""");

        assertThat(DashboardQueries.of(file, api)).containsExactly(new Query("Restarts", "max(up{job_name=\"\"})"));
    }

    @Test
    void aQueryVariableOtherThanLabelValuesIsRefusedByName() throws IOException {
        Path file = dashboard("""
                {"name":"job","type":"query","query":"query_result(up)"}""", "");

        assertThatThrownBy(() -> DashboardQueries.of(file, api))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dashboard variable job: only label_values(metric, label) is understood, found"
                        + " \"query_result(up)\"");
        assertThat(prometheus.asked()).isEmpty();
    }
}
