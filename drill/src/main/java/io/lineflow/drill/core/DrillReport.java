package io.lineflow.drill.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The drill's report: a terminal summary, and {@code report.html} with a verdict per scenario,
 * the recovery timeline, a chart of expected against actual pieces per window, and the first
 * discrepancies found.
 */
public final class DrillReport {
    private static final DateTimeFormatter HHMM =
            DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    private DrillReport() {}

    public static String summary(List<ScenarioResult> results) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                "%n%-34s %-30s %9s %9s %10s %12s %s%n",
                "scenario", "verdict", "rows", "→leader", "→RUNNING", "output gap", "discrepancies"));
        for (ScenarioResult r : results) {
            b.append(String.format(
                    "%-34s %-30s %9s %9s %10s %12s %s%n",
                    r.scenario.name(),
                    r.verdict(),
                    r.rowsActual + "/" + r.rowsExpected,
                    r.leaderMillis == null ? "—" : seconds(r.leaderMillis),
                    r.recoveryMillis == null ? "no stop" : seconds(r.recoveryMillis),
                    r.outputGapMillis == null ? "—" : seconds(r.outputGapMillis),
                    r.error != null
                            ? r.error
                            : String.format(
                                    "%d missing, %d extra, %d wrong rows%s",
                                    r.missing,
                                    r.extra,
                                    r.wrong,
                                    r.problems.stream().anyMatch(p -> p.startsWith("REJECTED"))
                                            ? ", rejected_events differ"
                                            : "")));
        }
        long failed = results.stream().filter(r -> !r.passed()).count();
        boolean anyFault = results.stream().anyMatch(r -> r.scenario.injects());
        boolean anyControl = results.stream().anyMatch(r -> r.scenario.control());
        b.append(
                failed == 0
                        ? String.format(
                                "%nALL %d SCENARIOS PASSED: %s%s.%n",
                                results.size(),
                                anyFault ? "every fault left the table exact" : "the table is exact",
                                anyControl ? ", every control was caught" : "")
                        : String.format("%n%d OF %d SCENARIOS FAILED.%n", failed, results.size()));
        return b.toString();
    }

    /**
     * Writes {@code dir/report.html}; {@code backend} says in a paragraph where the job ran and
     * what its timeline columns measure.
     */
    public static Path writeHtml(List<ScenarioResult> results, Path dir, String backend) throws IOException {
        StringBuilder h = new StringBuilder();
        h.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>lineflow restart drill</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}")
                .append("td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}")
                .append(".ok{color:#0a7d32;font-weight:600}.bad{color:#c0262d;font-weight:600}")
                .append("section{margin:2em 0}pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:14em}")
                .append("</style></head><body>");
        h.append("<h1>lineflow restart drill</h1><p>")
                .append(Instant.now())
                .append(" — ")
                .append(
                        results.stream().allMatch(ScenarioResult::passed)
                                ? "<span class=ok>all scenarios passed</span>"
                                : "<span class=bad>some scenarios failed</span>")
                .append("</p><h2>Backend</h2><p>")
                .append(esc(backend))
                .append("</p><table><tr><th>scenario</th><th>verdict</th><th>rows (actual/expected)</th>")
                .append(
                        "<th>injection → new leader</th><th>injection → RUNNING</th><th>injection → first new row</th><th>rejected events</th><th>took</th></tr>");
        for (ScenarioResult r : results) {
            h.append("<tr><td><a href=\"#")
                    .append(anchor(r))
                    .append("\">")
                    .append(esc(r.scenario.name()))
                    .append("</a></td>")
                    .append("<td class=")
                    .append(r.passed() ? "ok" : "bad")
                    .append('>')
                    .append(esc(r.verdict()))
                    .append("</td>")
                    .append("<td>")
                    .append(r.rowsActual)
                    .append(" / ")
                    .append(r.rowsExpected)
                    .append("</td>")
                    .append("<td>")
                    .append(r.leaderMillis == null ? "—" : seconds(r.leaderMillis))
                    .append("</td>")
                    .append("<td>")
                    .append(r.recoveryMillis == null ? "did not stop" : seconds(r.recoveryMillis))
                    .append("</td>")
                    .append("<td>")
                    .append(r.outputGapMillis == null ? "—" : seconds(r.outputGapMillis))
                    .append("</td>")
                    .append("<td>")
                    .append(r.rejectionsActual.equals(r.rejectionsExpected) ? "as expected" : "differ")
                    .append("</td>")
                    .append("<td>")
                    .append(seconds(r.durationMillis))
                    .append("</td></tr>");
        }
        h.append("</table>");
        for (ScenarioResult r : results) {
            h.append("<section id=\"")
                    .append(anchor(r))
                    .append("\"><h2>")
                    .append(esc(r.scenario.name()))
                    .append(" — <span class=")
                    .append(r.passed() ? "ok" : "bad")
                    .append('>')
                    .append(esc(r.verdict()))
                    .append("</span></h2>");
            h.append("<p>Pieces per window, all devices: <span style=\"color:#1f6feb\">expected</span> and ")
                    .append("<span style=\"color:#e8590c\">in the table</span>.</p>")
                    .append(chart(r.piecesExpected, r.piecesActual));
            h.append("<p>Rejected events expected ")
                    .append(esc(r.rejectionsExpected))
                    .append(", found ")
                    .append(esc(r.rejectionsActual))
                    .append(".</p>");
            if (!r.waited.isEmpty()) {
                h.append("<p>Read when: ").append(esc(r.waited)).append(".</p>");
            }
            for (Map.Entry<String, List<TimeChart.Point>> c : r.series.entrySet()) {
                h.append("<h3>")
                        .append(esc(c.getKey()))
                        .append("</h3>")
                        .append(TimeChart.svg(
                                Map.of(c.getKey(), c.getValue()),
                                r.startedAt,
                                r.startedAt + r.durationMillis,
                                r.marks,
                                Long.MAX_VALUE,
                                max -> String.format("%.3g", max)));
            }
            if (!r.series.isEmpty() && !r.marks.isEmpty()) {
                h.append("<p>The red line: the fault.</p>");
            }
            if (!r.monitoring.isEmpty()) {
                h.append("<p>Prometheus and the Alertmanager:</p><pre>");
                r.monitoring.forEach(m -> h.append(esc(m)).append('\n'));
                h.append("</pre>");
            }
            if (r.error != null) {
                h.append("<pre>").append(esc(r.error)).append("</pre>");
            } else if (!r.problems.isEmpty()) {
                h.append("<p>").append(r.problems.size()).append(" discrepancies; the first 30:</p><pre>");
                r.problems.stream().limit(30).forEach(p -> h.append(esc(p)).append('\n'));
                h.append("</pre>");
            }
            h.append("</section>");
        }
        h.append("</body></html>");
        Path file = dir.resolve("report.html");
        Files.writeString(file, h.toString());
        return file;
    }

    /** A line chart, inline SVG: no scripts, no libraries, opens anywhere. */
    private static String chart(Map<Long, Long> expected, Map<Long, Long> actual) {
        TreeSet<Long> windows = new TreeSet<>(expected.keySet());
        windows.addAll(actual.keySet());
        if (windows.isEmpty()) {
            return "<p>(no windows)</p>";
        }
        long max = 1;
        for (long w : windows) {
            max = Math.max(max, Math.max(expected.getOrDefault(w, 0L), actual.getOrDefault(w, 0L)));
        }
        int width = 720;
        int height = 180;
        int pad = 30;
        double step = windows.size() > 1 ? (width - 2.0 * pad) / (windows.size() - 1) : 0;
        StringBuilder e = new StringBuilder();
        StringBuilder a = new StringBuilder();
        int i = 0;
        for (long w : windows) {
            double x = pad + i++ * step;
            e.append(String.format("%.1f,%.1f ", x, y(expected.getOrDefault(w, 0L), max, height, pad)));
            a.append(String.format("%.1f,%.1f ", x, y(actual.getOrDefault(w, 0L), max, height, pad)));
        }
        return String.format(
                "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
                        + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                        + "<text x=\"2\" y=\"%d\" font-size=\"11\">%d</text><text x=\"2\" y=\"%d\" font-size=\"11\">0</text>"
                        + "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text><text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s UTC</text>"
                        + "<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"4\" stroke-opacity=\"0.5\" points=\"%s\"/>"
                        + "<polyline fill=\"none\" stroke=\"#e8590c\" stroke-width=\"1.5\" points=\"%s\"/></svg>",
                width,
                height,
                width,
                height,
                pad,
                height - pad,
                width - pad,
                height - pad,
                pad,
                max,
                height - pad,
                pad,
                height - 8,
                HHMM.format(Instant.ofEpochMilli(windows.first())),
                width - pad,
                height - 8,
                HHMM.format(Instant.ofEpochMilli(windows.last())),
                e,
                a);
    }

    /** A duration as the report shows it: seconds with one decimal. */
    public static String seconds(long millis) {
        return String.format("%.1f s", millis / 1000.0);
    }

    private static double y(long value, long max, int height, int pad) {
        return height - pad - (height - 2.0 * pad) * value / max;
    }

    private static String anchor(ScenarioResult r) {
        return r.scenario.name().replaceAll("[^a-zA-Z0-9]", "-");
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
