package io.lineflow.job.functions;

import static io.lineflow.testing.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

class CarryDowntimeTest {
    private static final long FIVE_MIN = 300_000;

    private KeyedOneInputStreamOperatorTestHarness<String, DeviceWindowStats, DeviceWindowStats> harness;

    private void open(long allowedLateness) throws Exception {
        open(allowedLateness, 7L * 24 * 3_600_000);
    }

    private void open(long allowedLateness, long silentFill) throws Exception {
        harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new CarryDowntime(FIVE_MIN, allowedLateness, silentFill)),
                r -> r.deviceId,
                org.apache.flink.api.common.typeinfo.Types.STRING);
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
    }

    /** A window row as the window function emits it: transitions given as (minute, isStart). */
    private static DeviceWindowStats window(double startMinute, long pieces, Object... transitions) {
        DeviceWindowStats row = new DeviceWindowStats();
        row.deviceId = "press-07";
        row.lineId = "L1";
        row.windowStart = t(startMinute);
        row.windowEnd = row.windowStart + FIVE_MIN;
        row.piecesProduced = pieces;
        row.eventsSeen = pieces + transitions.length / 2;
        long[] encoded = new long[transitions.length / 2];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = WindowAccumulator.transition(
                    t(((Number) transitions[2 * i]).doubleValue()), (Boolean) transitions[2 * i + 1]);
        }
        row.transitions = encoded;
        return row;
    }

    /** Feeds a row as the window operator would: the row, then the watermark at its end. */
    private void emit(DeviceWindowStats row) throws Exception {
        harness.processElement(new StreamRecord<>(row, row.windowEnd - 1));
        harness.processWatermark(new Watermark(row.windowEnd - 1));
    }

    private List<DeviceWindowStats> rows() {
        return harness.extractOutputValues();
    }

    private static List<Long> downtimeSeconds(List<DeviceWindowStats> rows) {
        return rows.stream().map(r -> r.downtimeMillis / 1000).collect(Collectors.toList());
    }

    @Test
    void splitsAStopAcrossWindowsAndFillsASilentWindowInBetween() throws Exception {
        open(0);
        emit(window(0, 10, 3.0, true)); // stops at 10:03, still down at 10:05
        // 10:05-10:10: the device sends nothing while stopped
        harness.processWatermark(new Watermark(t(10) - 1));
        emit(window(10, 4, 12.0, false)); // back at 10:12

        List<DeviceWindowStats> rows = rows();
        assertThat(rows).extracting(r -> r.windowStart).containsExactly(t(0), t(5), t(10));
        assertThat(downtimeSeconds(rows)).containsExactly(120L, 300L, 120L);
        DeviceWindowStats silent = rows.get(1);
        assertThat(silent.eventsSeen).isZero();
        assertThat(silent.piecesProduced).isZero();
        assertThat(silent.firstEventTs).isNull();
        assertThat(rows).allSatisfy(r -> assertThat(r.transitions).isNull());
        assertThat(harness.numKeyedStateEntries())
                .as("state dropped once the stop closed")
                .isZero();
    }

    @Test
    void aWatermarkJumpOverTwoWindowEndsStillWritesTheSilentWindowBetween() throws Exception {
        open(600_000);
        emit(window(0, 10, 3.0, true)); // stops at 10:03, still down at 10:05
        // Catch-up: one watermark step passes 10:10 and 10:15. The window operator emits the
        // 10:10 row before it forwards the watermark, so the row arrives before the carry's timer
        // for the silent 10:05 window has fired.
        DeviceWindowStats back = window(10, 4, 11.0, false); // back at 10:11
        harness.processElement(new StreamRecord<>(back, back.windowEnd - 1));
        harness.processWatermark(new Watermark(t(15) - 1));

        List<DeviceWindowStats> rows = rows();
        assertThat(rows).extracting(r -> r.windowStart).containsExactly(t(0), t(5), t(10));
        assertThat(downtimeSeconds(rows)).containsExactly(120L, 300L, 60L);
        assertThat(rows.get(1).eventsSeen).isZero();
        assertThat(rows.get(1).lineId).isEqualTo("L1");
        // The silent window may still come again within its lateness (an event for it in the same
        // catch-up): it keeps the open-at-start it was written with.
        DeviceWindowStats refired = window(5, 2);
        harness.processElement(new StreamRecord<>(refired, refired.windowEnd - 1));
        assertThat(rows().get(3).downtimeMillis).isEqualTo(FIVE_MIN);

        harness.processWatermark(new Watermark(t(15) + 600_000));
        assertThat(rows()).hasSize(4);
        assertThat(harness.numKeyedStateEntries())
                .as("state dropped once the stop closed")
                .isZero();
    }

    @Test
    void aWatermarkJumpOverSeveralWindowEndsWithNoNewerRowFillsEverySilentWindow() throws Exception {
        open(0);
        emit(window(0, 10, 3.0, true));
        // The device stays silent while one watermark step passes three window ends.
        harness.processWatermark(new Watermark(t(20) - 1));
        assertThat(rows()).extracting(r -> r.windowStart).containsExactly(t(0), t(5), t(10), t(15));
        assertThat(downtimeSeconds(rows())).containsExactly(120L, 300L, 300L, 300L);

        emit(window(20, 1, 22.0, false));
        assertThat(downtimeSeconds(rows())).containsExactly(120L, 300L, 300L, 300L, 120L);
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void silentWindowsAreWrittenOnlyForTheSilentFillAfterTheLastWindowWithEvents() throws Exception {
        open(0, 2 * FIVE_MIN);
        emit(window(0, 10, 3.0, true));
        // Silent while stopped for an hour of event time: two silent windows, then nothing.
        harness.processWatermark(new Watermark(t(60) - 1));
        assertThat(rows()).extracting(r -> r.windowStart).containsExactly(t(0), t(5), t(10));

        // Back after the gap: no row for the windows beyond the fill, but the stop was still open
        // when this window began, and the next silence may again fill two windows.
        emit(window(60, 1, 62.0, false));
        emit(window(65, 0, 66.0, true));
        harness.processWatermark(new Watermark(t(100) - 1));
        assertThat(rows())
                .extracting(r -> r.windowStart)
                .containsExactly(t(0), t(5), t(10), t(60), t(65), t(70), t(75));
        assertThat(downtimeSeconds(rows())).containsExactly(120L, 300L, 300L, 120L, 240L, 300L, 300L);
    }

    @Test
    void aRowLongAfterAStaleStopFillsOnlyTheSilentFillBeforeIt() throws Exception {
        // One step over a long gap, as a backlog is read: the row after it gets at most the fill.
        open(0, 3 * FIVE_MIN);
        DeviceWindowStats stale = window(0, 0, 1.0, true);
        DeviceWindowStats muchLater = window(600, 2);
        harness.processElement(new StreamRecord<>(stale, stale.windowEnd - 1));
        harness.processElement(new StreamRecord<>(muchLater, muchLater.windowEnd - 1));
        harness.processWatermark(new Watermark(t(605) - 1));
        assertThat(rows()).extracting(r -> r.windowStart).containsExactly(t(0), t(5), t(10), t(15), t(600));
        assertThat(downtimeSeconds(rows())).containsExactly(240L, 300L, 300L, 300L, 300L);
    }

    @Test
    void aJumpWithSeveralRowsFillsEachGapBeforeTheRowAfterIt() throws Exception {
        open(0);
        emit(window(0, 10, 3.0, true));
        // One step from 10:05 to 10:25: the device reported in 10:10 (still down) and in 10:20.
        DeviceWindowStats stillDown = window(10, 0);
        DeviceWindowStats back = window(20, 4, 21.0, false);
        harness.processElement(new StreamRecord<>(stillDown, stillDown.windowEnd - 1));
        harness.processElement(new StreamRecord<>(back, back.windowEnd - 1));
        harness.processWatermark(new Watermark(t(25) - 1));

        List<DeviceWindowStats> rows = rows();
        assertThat(rows).extracting(r -> r.windowStart).containsExactly(t(0), t(5), t(10), t(15), t(20));
        assertThat(downtimeSeconds(rows)).containsExactly(120L, 300L, 300L, 300L, 60L);
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void aRowAfterAGapWithNoStopOpenFillsNothing() throws Exception {
        open(0);
        emit(window(0, 10, 3.0, true, 4.0, false));
        DeviceWindowStats later = window(15, 2);
        harness.processElement(new StreamRecord<>(later, later.windowEnd - 1));
        harness.processWatermark(new Watermark(t(20) - 1));
        assertThat(rows()).extracting(r -> r.windowStart).containsExactly(t(0), t(15));
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void anEndWithoutAStartMeansTheStopBeganBeforeTheWindow() throws Exception {
        open(0);
        emit(window(0, 5, 1.5, false, 2.0, true, 2.5, false));
        assertThat(downtimeSeconds(rows())).containsExactly(90L + 30L);
    }

    @Test
    void aRepeatedStartDoesNotRestartTheStop() throws Exception {
        open(0);
        emit(window(0, 0, 1.0, true, 2.0, true, 3.0, false));
        assertThat(downtimeSeconds(rows())).containsExactly(120L);
    }

    @Test
    void stopsFillingSilentWindowsAtTheEndOfInput() throws Exception {
        open(0);
        emit(window(0, 1, 4.0, true));
        harness.processWatermark(new Watermark(Long.MAX_VALUE));
        assertThat(rows()).hasSize(1);
    }

    @Test
    void aLateRefiringUsesTheStopStateTheWindowFirstHad() throws Exception {
        open(60_000);
        emit(window(0, 1, 4.0, true)); // open at 10:05
        emit(window(5, 2)); // open all window, no transitions
        DeviceWindowStats refired = window(5, 3); // a late piece for 10:05-10:10
        harness.processElement(new StreamRecord<>(refired, refired.windowEnd - 1));

        List<DeviceWindowStats> rows = rows();
        assertThat(rows).hasSize(3);
        assertThat(rows.get(2).piecesProduced).isEqualTo(3);
        assertThat(rows.get(2).downtimeMillis).isEqualTo(FIVE_MIN);

        // After the lateness passes and the stop closes, only the carry of the open stop stays.
        emit(window(10, 1, 11.0, false));
        harness.processWatermark(new Watermark(t(15) + 60_000));
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void aProvisionalRowReplacedByTheFinalOneCarriesTheFinalStopStateOn() throws Exception {
        open(0);
        // The device went quiet at 10:04 with a stop open: a provisional row, before the watermark.
        harness.processElement(new StreamRecord<>(window(0, 1, 4.0, true), t(5) - 1));
        // It comes back: the stop ended at 10:04:30; the watermark's row replaces the provisional.
        emit(window(0, 1, 4.0, true, 4.5, false));
        emit(window(5, 2));

        assertThat(downtimeSeconds(rows())).containsExactly(60L, 30L, 0L);
        harness.processWatermark(new Watermark(t(10)));
        assertThat(harness.numKeyedStateEntries()).isZero();
    }

    @Test
    void theSameWindowTwiceWithoutAllowedLatenessKeepsItsOpenAtStart() throws Exception {
        open(0);
        emit(window(0, 1, 4.0, true)); // open at 10:05
        harness.processElement(new StreamRecord<>(window(5, 2), t(10) - 1)); // provisional
        emit(window(5, 3)); // final, still silent about the stop
        assertThat(downtimeSeconds(rows())).containsExactly(60L, 300L, 300L);
    }
}
