package io.lineflow.job.functions;

import org.junit.jupiter.api.Test;

import static io.lineflow.testing.TestEvents.piece;
import static io.lineflow.testing.TestEvents.stopEnd;
import static io.lineflow.testing.TestEvents.stopStart;
import static io.lineflow.testing.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

class WindowFiguresAggregateTest {
    private final WindowFiguresAggregate agg = new WindowFiguresAggregate();

    @Test
    void countsPiecesEventsAndStopsAndKeepsTransitionsSortedWhateverTheArrivalOrder() {
        WindowAccumulator acc = agg.createAccumulator();
        agg.add(stopEnd("e3", "d1", 3), acc);
        agg.add(piece("e1", "d1", 1, 4), acc);
        agg.add(stopStart("e2", "d1", 2), acc);
        agg.add(piece("e4", "d1", 4, 2), acc);

        assertThat(acc.pieces).isEqualTo(6);
        assertThat(acc.events).isEqualTo(4);
        assertThat(acc.downtimeStarts).isEqualTo(1);
        assertThat(acc.firstTs).isEqualTo(t(1));
        assertThat(acc.lastTs).isEqualTo(t(4));
        assertThat(acc.transitions)
                .containsExactly(WindowAccumulator.transition(t(2), true), WindowAccumulator.transition(t(3), false));
    }

    @Test
    void mergeAddsUpBothHalves() {
        WindowAccumulator a = agg.createAccumulator();
        WindowAccumulator b = agg.createAccumulator();
        agg.add(piece("e1", "d1", 1, 1), a);
        agg.add(stopStart("e2", "d1", 2), b);
        agg.add(piece("e3", "d1", 0.5, 2), b);
        WindowAccumulator m = agg.merge(a, b);
        assertThat(m.pieces).isEqualTo(3);
        assertThat(m.events).isEqualTo(3);
        assertThat(m.firstTs).isEqualTo(t(0.5));
        assertThat(m.transitions).hasSize(1);
    }

    @Test
    void anEndSortsBeforeAStartAtTheSameInstant() {
        assertThat(WindowAccumulator.transition(t(1), false))
                .isLessThan(WindowAccumulator.transition(t(1), true));
    }
}
