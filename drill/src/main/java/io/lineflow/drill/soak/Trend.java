package io.lineflow.drill.soak;

import io.lineflow.drill.core.TimeChart.Point;

import java.util.List;

/**
 * Whether a measured series grows: the least-squares slope of its samples in a time span, per 10
 * minutes, against the series' mean level there. Pure.
 *
 * @param slopePer10Min the fitted change per 10 minutes, in the series' unit
 * @param level the mean of the samples in the span
 * @param samples how many samples the fit used
 */
public record Trend(double slopePer10Min, double level, int samples) {
    private static final double TEN_MINUTES = 600_000.0;

    /** The trend of {@code points} taken at or after {@code from}; fewer than 3 give no slope (0). */
    public static Trend of(List<Point> points, long from) {
        List<Point> in = points.stream().filter(p -> p.at() >= from).toList();
        int n = in.size();
        if (n == 0) {
            return new Trend(0, 0, 0);
        }
        double mt = in.stream().mapToDouble(p -> p.at()).average().orElse(0);
        double mv = in.stream().mapToDouble(Point::value).average().orElse(0);
        if (n < 3) {
            return new Trend(0, mv, n);
        }
        double sxy = 0;
        double sxx = 0;
        for (Point p : in) {
            sxy += (p.at() - mt) * (p.value() - mv);
            sxx += (p.at() - mt) * (p.at() - mt);
        }
        return new Trend(sxx == 0 ? 0 : sxy / sxx * TEN_MINUTES, mv, n);
    }

    /** The slope as a percentage of the level per 10 minutes (0 for a level of 0 with no slope). */
    public double percentPer10Min() {
        if (level == 0) {
            return slopePer10Min == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return 100 * slopePer10Min / Math.abs(level);
    }

    /** Flat or falling: it does not grow by more than {@code boundPercent} % of its level per 10 minutes. */
    public boolean flat(double boundPercent) {
        return percentPer10Min() <= boundPercent;
    }
}
