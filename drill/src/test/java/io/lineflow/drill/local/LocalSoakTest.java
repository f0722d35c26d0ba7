package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

/** When the soak counts the heap: every 2 minutes, never on a fault of a 2-minute schedule. */
class LocalSoakTest {
    /** Samples are 10 s apart: a fault every 2 minutes strikes at samples 12, 24, 36, … */
    @Test
    void heapCountsFallAMinuteAfterEachFaultOfATwoMinuteSchedule() {
        List<Integer> counts =
                IntStream.range(0, 120).filter(HeapProbe::countsHeap).boxed().toList();

        assertThat(counts).containsExactly(6, 18, 30, 42, 54, 66, 78, 90, 102, 114);
        assertThat(counts).noneMatch(i -> i % 12 == 0);
    }
}
