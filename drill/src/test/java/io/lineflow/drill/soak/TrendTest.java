package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.lineflow.drill.core.TimeChart.Point;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** The growth verdict's arithmetic. */
class TrendTest {
    private static final long MIN = 60_000;

    /** A sample every 10 s for {@code minutes}, {@code base} plus {@code perMinute} per minute, ± {@code wiggle}. */
    private static List<Point> series(int minutes, double base, double perMinute, double wiggle) {
        List<Point> out = new ArrayList<>();
        for (int i = 0; i <= minutes * 6; i++) {
            long t = i * 10_000L;
            out.add(new Point(t, base + perMinute * t / MIN + (i % 2 == 0 ? wiggle : -wiggle)));
        }
        return out;
    }

    @Test
    void aSteadyClimbIsMeasuredPer10Minutes() {
        Trend t = Trend.of(series(60, 100, 0.5, 0), 0);
        assertThat(t.slopePer10Min()).isCloseTo(5, within(1e-9));
        assertThat(t.level()).as("the median").isCloseTo(115, within(1e-9));
        assertThat(t.percentPer10Min()).isCloseTo(100 * 5 / 115.0, within(1e-9));
        assertThat(t.flat(1)).isFalse();
    }

    @Test
    void aSawtoothAroundALevelIsFlat() {
        Trend t = Trend.of(series(60, 500, 0, 40), 0);
        assertThat(Math.abs(t.slopePer10Min())).isLessThan(0.2);
        assertThat(t.flat(1)).isTrue();
    }

    @Test
    void onlyTheSpanCounts() {
        // Climbs for 20 minutes (warming up), then flat for 40.
        List<Point> p = new ArrayList<>();
        for (int i = 0; i <= 360; i++) {
            long t = i * 10_000L;
            p.add(new Point(t, t < 20 * MIN ? t / (double) MIN : 20));
        }
        assertThat(Trend.of(p, 0).flat(1)).isFalse();
        assertThat(Trend.of(p, 20 * MIN).flat(1)).isTrue();
        assertThat(Trend.of(p, 20 * MIN).samples()).isEqualTo(241);
    }

    /**
     * The ninth hour's taskmanager-2-g1 (MiB at its heap counts outside recoveries, last 40 min):
     * level 25.3–25.4, the first count after a database outage (37 min), a JobManager partition
     * (51) and an upgrade (55) up by 2–3.6 MiB (the released job classloader and reflection's
     * accessors, collected by the next count or the one after). A least-squares line through them
     * climbs 1.6 % per 10 minutes, because two of the three come late.
     */
    @Test
    void aFewLeftoversOfRestartsAreNotGrowth() {
        double[][] counts = {
            {21, 25.72}, {23, 25.31}, {25, 25.29}, {29, 25.34}, {31, 25.31}, {33, 25.32}, {35, 25.33},
            {37, 27.55}, {39, 26.19}, {41, 25.45}, {43, 25.41}, {47, 25.38}, {49, 25.39}, {51, 28.97},
            {53, 26.34}, {55, 28.65}, {57, 26.11}, {59, 25.62}
        };
        List<Point> p = new ArrayList<>();
        for (double[] c : counts) {
            p.add(new Point((long) (c[0] * MIN), c[1] * (1 << 20)));
        }
        Trend t = Trend.of(p, 20 * MIN);
        assertThat(t.percentPer10Min()).isBetween(0.0, 1.0);
        assertThat(t.flat(1)).isTrue();
    }

    /** A leak of 0.5 MiB per restart, a restart every 4.5 minutes, each with a passing 3 MiB leftover. */
    @Test
    void aStepPerRestartIsGrowthThroughTheLeftovers() {
        List<Point> p = new ArrayList<>();
        for (int minute = 21; minute < 60; minute += 2) {
            int restarts = (int) ((minute - 18) / 4.5);
            boolean firstAfter = (minute - 18) % 4.5 < 2;
            p.add(new Point(minute * MIN, (25 + 0.5 * restarts + (firstAfter ? 3 : 0)) * (1 << 20)));
        }
        Trend t = Trend.of(p, 20 * MIN);
        // 0.5 MiB per 4.5 min is 1.1 MiB per 10 min, about 4 % of the level.
        assertThat(t.percentPer10Min()).isGreaterThan(3.0);
        assertThat(t.flat(1)).isFalse();
    }

    @Test
    void fallingIsFlatEnough() {
        assertThat(Trend.of(series(40, 1000, -3, 0), 0).flat(1)).isTrue();
    }

    @Test
    void tooFewSamplesGiveNoSlope() {
        Trend t = Trend.of(List.of(new Point(0, 1), new Point(10_000, 5)), 0);
        assertThat(t.slopePer10Min()).isZero();
        assertThat(t.level()).isEqualTo(3);
    }
}
