package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.soak.Recovery.LagSample;

import org.junit.jupiter.api.Test;

import java.util.List;

/** From a fault to steady lag. */
class RecoveryTest {
    private static final List<LagSample> SAMPLES = List.of(
            new LagSample(1_000, true, 50L),
            new LagSample(3_000, false, null), // struck at 2 000
            new LagSample(5_000, false, 9_000L),
            new LagSample(7_000, true, 4_000L),
            new LagSample(9_000, true, 900L),
            new LagSample(11_000, true, 100L));

    @Test
    void steadyIsRunningWithTheLagAtOrUnderTheBound() {
        assertThat(Recovery.millis(SAMPLES, 2_000, 2_000, 1_000)).isEqualTo(7_000);
    }

    @Test
    void countsOnlyOnceTheStrikeHasEnded() {
        // A partition healed at 10 000: the low lag at 9 000 came before it.
        assertThat(Recovery.millis(SAMPLES, 2_000, 10_000, 1_000)).isEqualTo(9_000);
    }

    @Test
    void neverSteadyIsNull() {
        assertThat(Recovery.millis(SAMPLES, 2_000, 2_000, 10)).isNull();
    }
}
