package io.lineflow.drill.soak;

import io.lineflow.drill.core.TimeChart;
import io.lineflow.drill.core.TimeChart.Point;
import io.lineflow.drill.soak.SoakVerdicts.Verdict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The soak's report, in the drill report's style: a terminal summary, and {@code soak.html} with
 * the verdicts, the faults and checks, and one chart per measured series (inline SVG, no scripts)
 * with the faults marked on the time axis.
 */
public final class SoakReport {
    private SoakReport() {}

    public static String summary(SoakRecord r, List<Verdict> verdicts) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%n%-22s %8s %10s %s%n", "fault", "at", "recovery", "note"));
        for (SoakRecord.Struck s : r.struck()) {
            Long rec = r.recovery(s);
            b.append(String.format(
                    "%-22s %8s %10s %s%n",
                    s.fault(),
                    minutes(s.at() - r.startedAt),
                    rec == null ? "never" : SoakVerdicts.seconds(rec),
                    s.error() == null ? "" : s.error()));
        }
        b.append('\n');
        for (SoakRecord.Check c : r.checks()) {
            b.append(String.format(
                    "check %-28s %8s %s %s%n",
                    c.what(), minutes(c.at() - r.startedAt), c.exact() ? "EXACT" : "WRONG", c.detail()));
        }
        b.append('\n');
        for (Verdict v : verdicts) {
            b.append(String.format("%-4s %s: %s%n", v.passed() ? "OK" : "FAIL", v.name(), v.detail()));
        }
        return b.toString();
    }

    public static Path writeHtml(SoakRecord r, List<Verdict> verdicts, long endedAt, Path dir, String setup)
            throws IOException {
        StringBuilder h = new StringBuilder();
        h.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>lineflow soak</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}")
                .append("td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}")
                .append(".ok{color:#0a7d32;font-weight:600}.bad{color:#c0262d;font-weight:600}")
                .append("section{margin:2em 0}.legend span{margin-right:1.2em}")
                .append("</style></head><body>");
        boolean passed = verdicts.stream().allMatch(Verdict::passed);
        h.append("<h1>lineflow soak</h1><p>")
                .append(Instant.ofEpochMilli(r.startedAt))
                .append(" – ")
                .append(Instant.ofEpochMilli(endedAt))
                .append(" — ")
                .append(
                        passed
                                ? "<span class=ok>every verdict passed</span>"
                                : "<span class=bad>a verdict failed</span>")
                .append("</p><p>")
                .append(esc(setup))
                .append("</p><h2>Verdicts</h2><table><tr><th>verdict</th><th></th><th>what was found</th></tr>");
        for (Verdict v : verdicts) {
            h.append("<tr><td>")
                    .append(esc(v.name()))
                    .append("</td><td class=")
                    .append(v.passed() ? "ok>OK" : "bad>FAIL")
                    .append("</td><td>")
                    .append(esc(v.detail()))
                    .append("</td></tr>");
        }
        h.append("</table><h2>Faults</h2><table><tr><th>#</th><th>fault</th><th>struck at</th><th>its action took</th>")
                .append("<th>fault → steady lag</th><th>error</th></tr>");
        int i = 1;
        for (SoakRecord.Struck s : r.struck()) {
            Long rec = r.recovery(s);
            h.append("<tr><td>")
                    .append(i++)
                    .append("</td><td>")
                    .append(esc(s.fault()))
                    .append("</td><td>")
                    .append(minutes(s.at() - r.startedAt))
                    .append("</td><td>")
                    .append(SoakVerdicts.seconds(s.ended() - s.at()))
                    .append("</td><td class=")
                    .append(rec != null && rec <= r.options.recoveryLimit().toMillis() ? "ok" : "bad")
                    .append('>')
                    .append(rec == null ? "never" : SoakVerdicts.seconds(rec))
                    .append("</td><td>")
                    .append(s.error() == null ? "" : esc(s.error()))
                    .append("</td></tr>");
        }
        h.append("</table><h2>Table checks</h2><table><tr><th>at</th><th>what</th><th></th><th>detail</th></tr>");
        for (SoakRecord.Check c : r.checks()) {
            h.append("<tr><td>")
                    .append(minutes(c.at() - r.startedAt))
                    .append("</td><td>")
                    .append(esc(c.what()))
                    .append("</td><td class=")
                    .append(c.exact() ? "ok>EXACT" : "bad>WRONG")
                    .append("</td><td>")
                    .append(esc(c.detail()))
                    .append("</td></tr>");
        }
        h.append("</table><h2>What grows</h2><p>Sampled every 10 s (the lag every 2 s); the faults are the red ")
                .append(
                        "lines, numbered as in the table above; the shaded span is the one the growth verdicts fit.</p>");
        long from = endedAt - r.options.trendSpan().toMillis();
        for (Map.Entry<String, Map<String, List<Point>>> c : r.charts().entrySet()) {
            h.append("<section><h3>")
                    .append(esc(c.getKey()))
                    .append(" (")
                    .append(esc(r.unit(c.getKey())))
                    .append(")</h3>")
                    .append(TimeChart.svg(
                            c.getValue(),
                            r.startedAt,
                            endedAt,
                            r.struck().stream()
                                    .map(f -> new TimeChart.Mark(f.at(), f.fault()))
                                    .toList(),
                            from,
                            max -> label(max, r.unit(c.getKey()))))
                    .append(TimeChart.legend(c.getValue().keySet()));
            h.append("</section>");
        }
        h.append("</body></html>");
        Files.createDirectories(dir);
        Path file = dir.resolve("soak.html");
        Files.writeString(file, h.toString());
        return file;
    }

    private static String label(double max, String unit) {
        return unit.equals("bytes") ? SoakVerdicts.human(max) : String.format("%,.0f", max);
    }

    static String minutes(long millis) {
        return String.format("%d:%02d", millis / 60_000, millis / 1000 % 60);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
