package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.ScenarioResult;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What the e2e Prometheus shows of a scenario: every query of the shipped Grafana dashboard
 * answered, and the report's charts.
 *
 * @param deadline until every dashboard query returns a series (rates need two scrapes 30 s apart)
 */
record DashboardCheck(PrometheusApi prometheus, Path dashboard, Duration deadline, Consumer<String> log) {
    /** What Prometheus saw during the scenario, for the report: a chart per series, by title. */
    static final Map<String, String> SERIES = new TreeMap<>(Map.of(
            "rows written per second (the window sink's records in)",
            "sum(rate(flink_taskmanager_job_task_operator_numRecordsIn{operator_name=~\"device_window_stats.*\"}[1m]))",
            "Kafka lag (records the source has not read)",
            "sum(flink_taskmanager_job_task_operator_pendingRecords)",
            "last checkpoint's duration (s)",
            "max(flink_jobmanager_job_lastCheckpointDuration) / 1000",
            "job restarts (numRestarts of the leading JobManager)",
            "max(flink_jobmanager_job_numRestarts)"));

    /**
     * Every query of the dashboard returns at least one series from Prometheus, which scraped what
     * the shipped PodMonitors select: a query with a wrong metric or label name returns nothing,
     * and that is a problem.
     */
    void answers(ScenarioResult result) {
        List<String> answers = new ArrayList<>();
        List<String> empty = new ArrayList<>();
        Await.until(deadline, Await.pollWithin(deadline, Duration.ofSeconds(10)), () -> {
            answers.clear();
            empty.clear();
            for (DashboardQueries.Query q : DashboardQueries.of(dashboard, prometheus::labelValues)) {
                List<PrometheusApi.Series> series = prometheus.query(q.expr());
                if (series.isEmpty()) {
                    empty.add("DASHBOARD '" + q.panel() + "' returns no series: " + q.expr());
                }
                answers.add("dashboard '" + q.panel() + "': " + q.expr() + " = "
                        + (series.isEmpty()
                                ? "no series"
                                : series.stream()
                                        .map(x -> String.format("%.3g", x.value()))
                                        .toList()));
            }
            return empty.isEmpty();
        });
        result.monitoring.addAll(answers);
        answers.forEach(a -> log.accept("  " + a));
        result.problems.addAll(empty);
    }

    /** The report's charts of {@link #SERIES} from {@code began} to {@code ended} (epoch ms). */
    void chart(ScenarioResult result, long began, long ended) {
        result.startedAt = began;
        SERIES.forEach((title, expr) -> {
            try {
                result.series.put(title, prometheus.range(expr, began, ended, Duration.ofSeconds(15)));
            } catch (RuntimeException e) {
                result.monitoring.add("no chart of " + title + ": " + e.getMessage());
            }
        });
    }
}
