package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The heap live after a full GC, as the JVM's unified log reports it. */
class GcLogTest {
    @Test
    void readsTheHeapAfterAFullCollection() {
        // what jcmd GC.run makes a TaskManager of the soak log
        assertThat(GcLog.liveAfterFull(
                        "[138.589s][info][gc] GC(16) Pause Full (Diagnostic Command) 88M->28M(288M) 36.903ms"))
                .hasValue(28L << 20);
        assertThat(GcLog.liveAfterFull("[99.1s][info][gc] GC(30) Pause Full (System.gc()) 1G->812K(1G) 20.1ms"))
                .hasValue(812L << 10);
        assertThat(GcLog.liveAfterFull("[9.1s][info][gc] GC(31) Pause Full (G1 Compaction Pause) 90M->41M(128M) 8.1ms"))
                .hasValue(41L << 20);
    }

    /** After a young collection the old generation's garbage is still counted: not what is live. */
    @Test
    void aYoungCollectionIsNotALiveMeasure() {
        assertThat(GcLog.liveAfterFull(
                        "[12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 120M->40M(512M) 3.456ms"))
                .isEmpty();
        assertThat(GcLog.liveAfterFull("[6.050s][info][gc] GC(5) Pause Remark 16M->16M(288M) 13.125ms"))
                .isEmpty();
    }

    @Test
    void otherLinesGiveNothing() {
        assertThat(GcLog.liveAfterFull("[0.010s][info][gc] Using G1")).isEmpty();
        assertThat(GcLog.liveAfterFull("[5.0s][info][gc] GC(3) Concurrent Mark Cycle 12.3ms"))
                .isEmpty();
    }
}
