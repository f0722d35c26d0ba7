package io.lineflow.job.functions;

import static io.lineflow.testing.TestEvents.piece;
import static io.lineflow.testing.TestEvents.stopStart;
import static io.lineflow.testing.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.event.RejectedEvent;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Windows of 5 minutes from {@code t(0)}, 1 minute of allowed lateness, quiet windows emitted
 * after 2 minutes.
 */
class CountDeviceWindowsTest {
    private static final long WINDOW = Duration.ofMinutes(5).toMillis();

    private static KeyedOneInputStreamOperatorTestHarness<String, DeviceEvent, DeviceWindowStats> harness()
            throws Exception {
        return harness(null);
    }

    /** A harness opened on {@code restored}, or on empty state for null. */
    private static KeyedOneInputStreamOperatorTestHarness<String, DeviceEvent, DeviceWindowStats> harness(
            OperatorSubtaskState restored) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<String, DeviceEvent, DeviceWindowStats> h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new CountDeviceWindows(
                                Duration.ofMinutes(5), Duration.ofMinutes(1), Duration.ofMinutes(2))),
                        e -> e.deviceId,
                        Types.STRING);
        if (restored != null) {
            h.initializeState(restored);
        }
        h.open();
        return h;
    }

    private static StreamRecord<DeviceEvent> record(DeviceEvent e, long offset) {
        return new StreamRecord<>(e.at("device-events", 0, offset), e.ts);
    }

    private static List<RejectedEvent> rejected(
            KeyedOneInputStreamOperatorTestHarness<String, DeviceEvent, DeviceWindowStats> h) {
        var side = h.getSideOutput(CountDeviceWindows.REJECTED); // null until something is rejected
        return side == null
                ? List.of()
                : side.stream().map(StreamRecord::getValue).collect(Collectors.toList());
    }

    @Test
    void emitsEachWindowOnceTheWatermarkPassesItsEnd() throws Exception {
        try (var h = harness()) {
            h.processElement(record(piece("e1", "d1", 1, 3), 0));
            h.processElement(record(stopStart("e2", "d1", 2), 1));
            h.processElement(record(piece("e3", "d1", 4.5, 2), 2));
            h.processElement(record(piece("e4", "d1", 6, 1), 3)); // next window
            h.processWatermark(t(5) - 2);
            assertThat(h.extractOutputValues()).isEmpty();

            h.processWatermark(t(5) - 1);
            List<DeviceWindowStats> rows = h.extractOutputValues();
            assertThat(rows).hasSize(1);
            DeviceWindowStats row = rows.get(0);
            assertThat(row.deviceId).isEqualTo("d1");
            assertThat(row.windowStart).isEqualTo(t(0));
            assertThat(row.windowEnd).isEqualTo(t(0) + WINDOW);
            assertThat(row.piecesProduced).isEqualTo(5);
            assertThat(row.eventsSeen).isEqualTo(3);
            assertThat(row.downtimeCount).isEqualTo(1);
            assertThat(row.firstEventTs).isEqualTo(t(1));
            assertThat(row.lastEventTs).isEqualTo(t(4.5));
            assertThat(row.transitions).containsExactly(WindowAccumulator.transition(t(2), true));

            h.processWatermark(t(10) - 1);
            assertThat(h.extractOutputValues()).hasSize(2);
            assertThat(h.extractOutputValues().get(1).piecesProduced).isEqualTo(1);
            assertThat(rejected(h)).isEmpty();
        }
    }

    @Test
    void countsALateEventWithinTheLatenessAgainAndRejectsOneBeyondIt() throws Exception {
        try (var h = harness()) {
            h.processElement(record(piece("e1", "d1", 1, 1), 0));
            h.processWatermark(t(5.5)); // window [0, 5) fired, half a minute into its lateness
            h.processElement(record(piece("e2", "d1", 2, 4), 1)); // late, within lateness
            List<DeviceWindowStats> rows = h.extractOutputValues();
            assertThat(rows).extracting(r -> r.piecesProduced).containsExactly(1L, 5L);
            assertThat(rows.get(1).eventsSeen).isEqualTo(2);

            // The first event of a window that already ended, within its lateness: emitted at once
            // and not again when the watermark moves on.
            h.processElement(record(piece("e3", "d2", 3, 7), 2));
            h.processWatermark(t(5.9));
            assertThat(h.extractOutputValues()).extracting(r -> r.deviceId).containsExactly("d1", "d1", "d2");

            h.processWatermark(t(6) - 1); // the lateness of [0, 5) has passed
            h.setProcessingTime(Duration.ofMinutes(5).toMillis());
            h.processElement(record(piece("e4", "d1", 3, 9), 3));
            assertThat(h.extractOutputValues()).hasSize(3);
            List<RejectedEvent> late = rejected(h);
            assertThat(late).hasSize(1);
            assertThat(late.get(0).reason).isEqualTo(RejectReason.LATE);
            assertThat(late.get(0).offset).isEqualTo(3L);
            assertThat(new String(late.get(0).raw)).contains("\"eventId\":\"e4\"");
            // Both devices' windows are gone, and their ids with them.
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void countsARetriedEventOnceAndKeepsTheRepeat() throws Exception {
        try (var h = harness()) {
            h.processElement(record(piece("e1", "d1", 1, 1), 0));
            h.processElement(record(piece("e1", "d1", 1, 1), 1)); // producer retry
            h.processElement(record(piece("e1", "d2", 1, 1), 2)); // same id, other device
            h.processWatermark(t(5));

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.deviceId + ":" + r.eventsSeen)
                    .containsExactlyInAnyOrder("d1:1", "d2:1");
            List<RejectedEvent> dups = rejected(h);
            assertThat(dups).hasSize(1);
            assertThat(dups.get(0).reason).isEqualTo(RejectReason.DUPLICATE);
            assertThat(dups.get(0).offset).isEqualTo(1L);
            assertThat(new String(dups.get(0).raw)).contains("\"eventId\":\"e1\"");
        }
    }

    @Test
    void aRepeatIsADuplicateWhileItsWindowIsOpenLateOnceItIsFinalAndNothingIsKeptAfter() throws Exception {
        try (var h = harness()) {
            h.processElement(record(piece("e1", "d1", 1, 1), 0));
            h.processElement(record(piece("e1", "d1", 7, 1), 1)); // the id in another window: counted
            h.processWatermark(t(5) - 1); // 10:00 fires, still within its lateness
            h.processElement(record(piece("e1", "d1", 1, 1), 2)); // a retry within the lateness
            h.processWatermark(t(6)); // 10:00 is final: its ids are gone with it
            h.processElement(record(piece("e1", "d1", 1, 1), 3)); // the retry once 10:00 is final

            assertThat(rejected(h)).extracting(r -> r.offset + ":" + r.reason).containsExactly("2:DUPLICATE", "3:LATE");
            assertThat(h.extractOutputValues())
                    .extracting(r -> r.windowStart + ":" + r.eventsSeen)
                    .containsExactly(t(0) + ":1");

            // The second window's end and lateness pass: no id and no window is left.
            h.processWatermark(t(12));
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void emitsAQuietDevicesEndedWindowAfterTheIdleTime_thenTheWatermarksRowReplacesIt() throws Exception {
        try (var h = harness()) {
            h.setProcessingTime(t(1));
            h.processElement(record(piece("e1", "d1", 1, 3), 0));
            h.setProcessingTime(t(2));
            h.processElement(record(piece("e2", "d1", 2, 2), 1));
            h.setProcessingTime(t(5) - 1); // quiet since 10:02, but the window has not ended
            assertThat(h.extractOutputValues()).isEmpty();

            h.setProcessingTime(t(5)); // ended and quiet: the figures so far, state kept
            assertThat(h.extractOutputValues())
                    .extracting(r -> r.piecesProduced)
                    .containsExactly(5L);
            h.setProcessingTime(t(20));
            assertThat(h.extractOutputValues()).hasSize(1);

            // Production resumes: an event for the open window, then the watermark passes it.
            h.processElement(record(piece("e3", "d1", 3, 4), 2));
            h.processWatermark(t(5) - 1);
            assertThat(h.extractOutputValues())
                    .extracting(r -> r.piecesProduced)
                    .containsExactly(5L, 9L);
            h.setProcessingTime(t(30)); // the idle check the new event set finds the window fired
            assertThat(h.extractOutputValues()).hasSize(2);
            assertThat(rejected(h)).isEmpty();

            h.processWatermark(t(6));
            h.setProcessingTime(t(60));
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void aBusyDeviceHasOneIdleCheckPerIdlePeriodNotOnePerEvent() throws Exception {
        try (var h = harness()) {
            for (int i = 0; i < 100; i++) {
                h.setProcessingTime(t(0) + i * 1000L);
                h.processElement(record(piece("e" + i, "d1", 0.5 + i / 100.0, 1), i));
            }
            // One idle check and the id sweeps (one per sweep period the expiries fall in).
            assertThat(h.numProcessingTimeTimers()).isLessThanOrEqualTo(3);
            h.setProcessingTime(t(4));
            assertThat(h.numProcessingTimeTimers()).isLessThanOrEqualTo(3);
            assertThat(h.extractOutputValues()).isEmpty();
        }
    }

    @Test
    void afterARestoreWithoutNewEventsTheOverdueIdleCheckEmitsTheWindow() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.setProcessingTime(t(1));
            h.processElement(record(piece("e1", "d1", 1, 3), 0));
            h.processElement(record(stopStart("e2", "d1", 4), 1));
            snapshot = h.snapshot(1, t(1));
        }
        try (var h = harness(snapshot)) {
            h.setProcessingTime(t(60)); // restored long after: the check is overdue and fires at once
            List<DeviceWindowStats> rows = h.extractOutputValues();
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0).piecesProduced).isEqualTo(3);
            assertThat(rows.get(0).downtimeCount).isEqualTo(1);
        }
    }
}
