package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The heap after GC, as the JVM's unified log reports it. */
class GcLogTest {
    @Test
    void readsTheHeapAfterAYoungAndAFullCollection() {
        assertThat(GcLog.heapAfter(
                        "[12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 120M->40M(512M) 3.456ms"))
                .hasValue(40L << 20);
        assertThat(GcLog.heapAfter("[99.1s][info][gc] GC(30) Pause Full (System.gc()) 1G->812K(1G) 20.1ms"))
                .hasValue(812L << 10);
    }

    @Test
    void otherLinesGiveNothing() {
        assertThat(GcLog.heapAfter("[0.010s][info][gc] Using G1")).isEmpty();
        assertThat(GcLog.heapAfter("[5.0s][info][gc] GC(3) Concurrent Mark Cycle 12.3ms"))
                .isEmpty();
    }
}
