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

    @Test
    void remembersEachIdOnceInASortedArrayWithAtMostAThirdOfItSlack() {
        WindowAccumulator acc = new WindowAccumulator();
        java.util.Random rnd = new java.util.Random(7);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            long fp = rnd.nextInt(5_000) - 2_500L; // repeats, negatives and zero among them
            assertThat(acc.rememberId(fp)).as("id %d", fp).isEqualTo(seen.add(fp));
        }
        assertThat(acc.idCount).isEqualTo(seen.size());
        long[] held = java.util.Arrays.copyOf(acc.ids, acc.idCount);
        assertThat(held)
                .isSorted()
                .containsOnly(seen.stream().mapToLong(Long::longValue).toArray());
        assertThat(acc.ids.length).isLessThanOrEqualTo(acc.idCount * 3 / 2 + 4);
    }
}
