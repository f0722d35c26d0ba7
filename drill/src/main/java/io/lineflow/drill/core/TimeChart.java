package io.lineflow.drill.core;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * A line chart over time as inline SVG (no scripts, no libraries: it opens anywhere), with moments
 * marked as numbered dashed lines: the soak's series with its faults, a Kubernetes drill scenario's
 * Prometheus series with its fault.
 */
public final class TimeChart {
    /** One sample: when (epoch ms) and what was measured. */
    public record Point(long at, double value) {}

    /** A moment to mark (epoch ms), named in the line's tooltip. */
    public record Mark(long at, String name) {}

    /** The colours of the lines, in order; a legend uses the same. */
    public static final List<String> COLOURS =
            List.of("#1f6feb", "#e8590c", "#0a7d32", "#8250df", "#c0262d", "#6e7781", "#bf8700");

    private TimeChart() {}

    /**
     * Every line of {@code lines} from {@code from} to {@code to} (epoch ms) on one 0-based axis,
     * its top labelled by {@code scale}; the span from {@code shadeFrom} on shaded (none when it is
     * at or after {@code to}). A sample that is no finite number (Prometheus answers NaN and ±Inf)
     * is left out of its line and of the scale: one would otherwise make every coordinate NaN.
     */
    public static String svg(
            Map<String, List<Point>> lines,
            long from,
            long to,
            List<Mark> marks,
            long shadeFrom,
            DoubleFunction<String> scale) {
        int width = 900;
        int height = 220;
        int left = 70;
        int right = 20;
        int top = 14;
        int bottom = 30;
        long span = Math.max(1, to - from);
        double max = 0;
        for (List<Point> l : lines.values()) {
            for (Point p : l) {
                if (Double.isFinite(p.value())) {
                    max = Math.max(max, p.value());
                }
            }
        }
        max = max <= 0 ? 1 : max * 1.05;
        double plotW = width - left - right;
        double plotH = height - top - bottom;
        StringBuilder s = new StringBuilder();
        s.append(format(
                "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", width, height, width, height));
        if (shadeFrom < to) {
            double shade = left + plotW * Math.max(0, shadeFrom - from) / span;
            s.append(format(
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f6fa\"/>",
                    shade, top, left + plotW - shade, plotH));
        }
        s.append(format(
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\"/>",
                left, top + plotH, width - right, top + plotH));
        s.append(format(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"#999\"/>", left, top, left, top + plotH));
        s.append(format(
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>",
                left - 4, top + 10, esc(scale.apply(max))));
        s.append(format(
                "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">0</text>", left - 4, top + plotH));
        long minutes = span / 60_000;
        long step = minutes <= 10 ? 1 : minutes <= 30 ? 5 : 10;
        for (long m = 0; m <= minutes; m += step) {
            double x = left + plotW * m * 60_000 / span;
            s.append(format(
                    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d min</text>",
                    x, height - 8, m));
        }
        int n = 1;
        for (Mark mark : marks) {
            double x = left + plotW * (mark.at() - from) / span;
            s.append(format(
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c0262d\" stroke-dasharray=\"3,2\">"
                            + "<title>%s</title></line>"
                            + "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#c0262d\">%d</text>",
                    x, top, x, top + plotH, esc(mark.name()), x + 2, top + 9, n++));
        }
        int k = 0;
        for (List<Point> l : lines.values()) {
            StringBuilder pts = new StringBuilder();
            for (Point p : l) {
                if (!Double.isFinite(p.value())) {
                    continue;
                }
                pts.append(format(
                        "%.1f,%.1f ", left + plotW * (p.at() - from) / span, top + plotH - plotH * p.value() / max));
            }
            s.append(format(
                    "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>",
                    COLOURS.get(k++ % COLOURS.size()), pts));
        }
        return s.append("</svg>").toString();
    }

    /** A legend for {@code lines}, in the chart's colours. */
    public static String legend(Iterable<String> lines) {
        StringBuilder h = new StringBuilder("<p class=legend>");
        int k = 0;
        for (String line : lines) {
            h.append("<span style=\"color:")
                    .append(COLOURS.get(k++ % COLOURS.size()))
                    .append("\">■ ")
                    .append(esc(line))
                    .append("</span> ");
        }
        return h.append("</p>").toString();
    }

    /** SVG wants a decimal point whatever the machine's locale. */
    private static String format(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
