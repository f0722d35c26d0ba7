package io.lineflow.drill.soak;

import io.lineflow.drill.core.TimeChart.Point;

import java.util.Arrays;
import java.util.List;

/**
 * Whether a measured series grows: the Theil–Sen slope of its samples in a time span (the median
 * of the slopes between every two samples), per 10 minutes, against the series' median level there.
 * A sample off the line, such as a restart's leftovers counted a minute before they are collected,
 * moves the median no more than any other sample does; a leak, slow or a step per restart, tilts
 * most pairs, and so the median. Pure.
 *
 * @param slopePer10Min the change per 10 minutes, in the series' unit
 * @param level the median of the samples in the span
 * @param samples how many samples the slope used
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
        double level = median(in.stream().mapToDouble(Point::value).toArray());
        if (n < 3) {
            return new Trend(0, level, n);
        }
        double[] slopes = new double[n * (n - 1) / 2];
        int k = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                long dt = in.get(j).at() - in.get(i).at();
                if (dt != 0) {
                    slopes[k++] = (in.get(j).value() - in.get(i).value()) / dt;
                }
            }
        }
        return new Trend(k == 0 ? 0 : median(Arrays.copyOf(slopes, k)) * TEN_MINUTES, level, n);
    }

    private static double median(double[] values) {
        Arrays.sort(values);
        int m = values.length / 2;
        return values.length % 2 == 1 ? values[m] : (values[m - 1] + values[m]) / 2;
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
