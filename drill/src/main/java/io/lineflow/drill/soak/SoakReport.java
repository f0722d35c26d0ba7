package io.lineflow.drill.soak;

import io.lineflow.drill.soak.SoakVerdicts.Verdict;
import io.lineflow.drill.soak.Trend.Point;

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
    private static final String[] COLOURS = {"#1f6feb", "#e8590c", "#0a7d32", "#8250df", "#c0262d", "#6e7781", "#bf8700"
    };

    private SoakReport() {}

    public static String summary(SoakRecord r, List<Verdict> verdicts) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%n%-22s %8s %10s %s%n", "fault", "at", "recovery", "note"));
        for (SoakRecord.Struck s : r.struck()) {
            Long rec = Recovery.millis(r.lag(), s.at(), s.ended(), r.steadyLag);
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
            Long rec = Recovery.millis(r.lag(), s.at(), s.ended(), r.steadyLag);
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
                    .append(chart(c.getValue(), r.unit(c.getKey()), r, endedAt, from))
                    .append("<p class=legend>");
            int k = 0;
            for (String line : c.getValue().keySet()) {
                h.append("<span style=\"color:")
                        .append(COLOURS[k++ % COLOURS.length])
                        .append("\">■ ")
                        .append(esc(line))
                        .append("</span>");
            }
            h.append("</p></section>");
        }
        h.append("</body></html>");
        Files.createDirectories(dir);
        Path file = dir.resolve("soak.html");
        Files.writeString(file, h.toString());
        return file;
    }

    /** A line chart of every line over the whole run, inline SVG, the faults as vertical lines. */
    static String chart(Map<String, List<Point>> lines, String unit, SoakRecord r, long endedAt, long trendFrom) {
        int width = 900;
        int height = 220;
        int left = 70;
        int right = 20;
        int top = 14;
        int bottom = 30;
        long t0 = r.startedAt;
        long span = Math.max(1, endedAt - t0);
        double max = 0;
        for (List<Point> l : lines.values()) {
            for (Point p : l) {
                max = Math.max(max, p.value());
            }
        }
        max = max <= 0 ? 1 : max * 1.05;
        double plotW = width - left - right;
        double plotH = height - top - bottom;
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", width, height, width, height));
        double shade = left + plotW * Math.max(0, trendFrom - t0) / span;
        s.append(String.format(
                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f6fa\"/>",
                shade, top, left + plotW - shade, plotH));
        s.append(String.format(
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\"/>",
                left, top + plotH, width - right, top + plotH));
        s.append(String.format(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\"/>", left, top, left, top + plotH));
        s.append(String.format(
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>",
                left - 4, top + 10, esc(label(max, unit))));
        s.append(String.format(
                "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">0</text>", left - 4, top + plotH));
        long minutes = span / 60_000;
        long step = minutes <= 10 ? 1 : minutes <= 30 ? 5 : 10;
        for (long m = 0; m <= minutes; m += step) {
            double x = left + plotW * m * 60_000 / span;
            s.append(String.format(
                    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d min</text>",
                    x, height - 8, m));
        }
        int n = 1;
        for (SoakRecord.Struck f : r.struck()) {
            double x = left + plotW * (f.at() - t0) / span;
            s.append(String.format(
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0262d\" stroke-dasharray=\"3,2\">"
                            + "<title>%s</title></line>"
                            + "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#c0262d\">%d</text>",
                    x, top, x, top + plotH, esc(f.fault()), x + 2, top + 9, n++));
        }
        int k = 0;
        for (List<Point> l : lines.values()) {
            StringBuilder pts = new StringBuilder();
            for (Point p : l) {
                pts.append(String.format(
                        "%.1f,%.1f ", left + plotW * (p.at() - t0) / span, top + plotH - plotH * p.value() / max));
            }
            s.append(String.format(
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>",
                    COLOURS[k++ % COLOURS.length], pts));
        }
        return s.append("</svg>").toString();
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
