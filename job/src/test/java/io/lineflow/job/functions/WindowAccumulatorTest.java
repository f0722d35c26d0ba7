package io.lineflow.job.functions;

import static io.lineflow.testing.TestEvents.piece;
import static io.lineflow.testing.TestEvents.stopEnd;
import static io.lineflow.testing.TestEvents.stopStart;
import static io.lineflow.testing.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.event.DeviceEvent;

import org.junit.jupiter.api.Test;

class WindowAccumulatorTest {

    @Test
    void countsPiecesEventsAndStopsAndKeepsTransitionsSortedWhateverTheArrivalOrder() {
        WindowAccumulator acc = new WindowAccumulator();
        add(acc, stopEnd("e3", "d1", 3));
        add(acc, piece("e1", "d1", 1, 4));
        add(acc, stopStart("e2", "d1", 2));
        add(acc, piece("e4", "d1", 4, 2));

        assertThat(acc.pieces).isEqualTo(6);
        assertThat(acc.events).isEqualTo(4);
        assertThat(acc.downtimeStarts).isEqualTo(1);
        assertThat(acc.firstTs).isEqualTo(t(1));
        assertThat(acc.lastTs).isEqualTo(t(4));
        assertThat(acc.transitions)
                .containsExactly(WindowAccumulator.transition(t(2), true), WindowAccumulator.transition(t(3), false));
    }

    private static void add(WindowAccumulator acc, DeviceEvent e) {
        acc.add(e.type, e.ts, e.count);
    }

    @Test
    void anEndSortsBeforeAStartAtTheSameInstant() {
        assertThat(WindowAccumulator.transition(t(1), false)).isLessThan(WindowAccumulator.transition(t(1), true));
    }
}
