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
        assertThat(t.level()).isCloseTo(115, within(1e-9));
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
