package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.soak.Recovery.LagSample;

import org.junit.jupiter.api.Test;

import java.util.List;

/** From a fault to steady lag. */
class RecoveryTest {
    private static final long NEVER = Long.MAX_VALUE;

    /** Struck at 2 000; the job restarted, its new attempt running since 6 000. */
    private static final List<LagSample> SAMPLES = List.of(
            new LagSample(1_000, true, 0L, 50L),
            new LagSample(3_000, false, null, null),
            new LagSample(5_000, false, null, 9_000L),
            new LagSample(7_000, true, 6_000L, 4_000L),
            new LagSample(9_000, true, 6_000L, 900L),
            new LagSample(11_000, true, 6_000L, 100L));

    @Test
    void steadyIsRunningWithTheLagAtOrUnderTheBound() {
        assertThat(Recovery.millis(SAMPLES, 2_000, 2_000, NEVER, 1_000)).isEqualTo(7_000);
    }

    @Test
    void countsOnlyOnceTheStrikeHasEnded() {
        // A partition healed at 10 000: the low lag at 9 000 came before it.
        assertThat(Recovery.millis(SAMPLES, 2_000, 10_000, NEVER, 1_000)).isEqualTo(9_000);
    }

    @Test
    void neverSteadyIsNull() {
        assertThat(Recovery.millis(SAMPLES, 2_000, 2_000, NEVER, 10)).isNull();
    }

    /**
     * A TaskManager killed at 2 000: Flink notices only at its heartbeat timeout, so the first
     * samples still show the old attempt (since 0) running with a low lag. The recovery is the new
     * attempt's, not 0.5 s.
     */
    @Test
    void aFaultFlinkNoticesLateIsRecoveredOnlyInTheNewAttempt() {
        List<LagSample> late = List.of(
                new LagSample(2_500, true, 0L, 50L),
                new LagSample(4_500, true, 0L, 60L),
                new LagSample(10_500, false, null, null),
                new LagSample(12_500, true, 12_000L, 8_000L),
                new LagSample(14_500, true, 12_000L, 400L));

        assertThat(Recovery.millis(late, 2_000, 2_000, NEVER, 1_000)).isEqualTo(12_500);
    }

    @Test
    void aFaultTheJobRidesOutIsSteadyAtOnce() {
        List<LagSample> riddenOut =
                List.of(new LagSample(2_500, true, 0L, 5_000L), new LagSample(4_500, true, 0L, 300L));

        assertThat(Recovery.millis(riddenOut, 2_000, 2_000, NEVER, 1_000)).isEqualTo(2_500);
    }

    @Test
    void aRestartOfTheNextFaultIsNotThisOnesRecovery() {
        // Ridden out; the next fault, at 60 000, restarts the job.
        List<LagSample> samples = List.of(
                new LagSample(2_500, true, 0L, 300L),
                new LagSample(61_000, false, null, null),
                new LagSample(63_000, true, 62_000L, 300L));

        assertThat(Recovery.millis(samples, 2_000, 2_000, 60_000, 1_000)).isEqualTo(500);
    }
}
