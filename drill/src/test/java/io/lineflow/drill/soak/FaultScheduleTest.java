package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Fault;
import io.lineflow.drill.soak.FaultSchedule.Strike;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

/** When the soak strikes what. */
class FaultScheduleTest {
    @Test
    void anHourAtFiveMinutesStrikesElevenTimesAndCyclesThroughEveryFaultOnce() {
        List<Strike> s = FaultSchedule.of(Duration.ofHours(1), Duration.ofMinutes(5), SoakOptions.CYCLE);
        assertThat(s).hasSize(11);
        // The faults that change the Flink processes' shape first, before the span the growth
        // verdicts fit (the last 40 minutes).
        assertThat(s.subList(0, 4).stream().map(Strike::fault))
                .containsExactly(Fault.UPGRADE, Fault.JM_FAILOVER, Fault.FULL_RESTART, Fault.TM_KILL);
        assertThat(s.get(3).at()).isLessThanOrEqualTo(Duration.ofMinutes(20));
        assertThat(s.get(10)).isEqualTo(new Strike(Duration.ofMinutes(55), Fault.PARTITION_JM));
        assertThat(s.stream().map(Strike::fault)).containsExactlyElementsOf(SoakOptions.CYCLE);
    }

    @Test
    void cyclesAgainWhenThereIsTimeForMoreFaultsThanNamed() {
        List<Strike> s = FaultSchedule.of(
                Duration.ofMinutes(5), Duration.ofMinutes(1), List.of(Fault.PG_KILL, Fault.PARTITION_KAFKA));
        assertThat(s)
                .containsExactly(
                        new Strike(Duration.ofMinutes(1), Fault.PG_KILL),
                        new Strike(Duration.ofMinutes(2), Fault.PARTITION_KAFKA),
                        new Strike(Duration.ofMinutes(3), Fault.PG_KILL),
                        new Strike(Duration.ofMinutes(4), Fault.PARTITION_KAFKA));
    }

    @Test
    void theLastIntervalStaysQuiet() {
        assertThat(FaultSchedule.of(Duration.ofSeconds(299), Duration.ofMinutes(1), List.of(Fault.TM_KILL)))
                .extracting(Strike::at)
                .containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(3));
    }

    @Test
    void noFaultsNoStrikes() {
        assertThat(FaultSchedule.of(Duration.ofHours(1), Duration.ofMinutes(5), List.of()))
                .isEmpty();
    }
}
