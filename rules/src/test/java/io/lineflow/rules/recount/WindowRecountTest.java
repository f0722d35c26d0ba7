package io.lineflow.rules.recount;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.Rules;
import io.lineflow.rules.event.RejectReason;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

class WindowRecountTest {
    private static final long T0 = Instant.parse("2026-11-01T10:00:00Z").toEpochMilli();
    private static final long W = 300_000;

    private static final Rules RULES = new Rules(
            W,
            60_000,
            10_000,
            65_536,
            3_600_000,
            Instant.parse("2000-01-01T00:00:00Z").toEpochMilli(),
            7L * 24 * 3_600_000);

    private final List<WindowRecount.Input> records = new ArrayList<>();
    /** The Kafka timestamp of the next record: the job's processing time as the recount sees it. */
    private long processingTime = T0 + 3_600_000;

    private void event(int partition, String id, String device, String type, double minute) {
        String json = String.format(
                "{\"eventId\":\"%s\",\"deviceId\":\"%s\",\"lineId\":\"L1\",\"type\":\"%s\",\"ts\":%d}",
                id, device, type, T0 + Math.round(minute * 60_000));
        raw(partition, device, json);
    }

    private void raw(int partition, String key, String value) {
        records.add(new WindowRecount.Input(
                partition,
                processingTime,
                key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8)));
    }

    private static String key(String device, double minute) {
        return device + "@" + Instant.ofEpochMilli(T0 + Math.round(minute * 60_000));
    }

    @Test
    void recountsClosedWindowsCarryingAStopAndLeavingOutWhatTheJobRejects() {
        event(0, "a", "d1", "PIECE_PRODUCED", 1);
        event(0, "b", "d1", "DOWNTIME_START", 4);
        event(0, "a", "d1", "PIECE_PRODUCED", 1); // a retry
        raw(0, "d1", "{not json");
        event(0, "c", "d1", "DOWNTIME_END", 12); // window 10:05 silent, fully down
        event(0, "d", "d1", "PIECE_PRODUCED", 13);
        event(0, "e", "d1", "PIECE_PRODUCED", 0.5); // 12.5 min late: past 1 min lateness
        event(0, "f", "d1", "PIECE_PRODUCED", 16); // closes 10:10 (watermark 15:50)

        WindowRecount.Result r = WindowRecount.recount(records, RULES);

        assertThat(r.rows().keySet()).containsExactly(key("d1", 0), key("d1", 5), key("d1", 10));
        assertThat(r.rows().get(key("d1", 0)).downtimeMillis()).isEqualTo(60_000);
        assertThat(r.rows().get(key("d1", 5)).downtimeMillis()).isEqualTo(W);
        assertThat(r.rows().get(key("d1", 5)).events()).isZero();
        assertThat(r.rows().get(key("d1", 10)).downtimeMillis()).isEqualTo(120_000);
        assertThat(r.rows().get(key("d1", 10)).pieces()).isEqualTo(1);
        assertThat(r.duplicates()).isEqualTo(1);
        assertThat(r.invalid()).isEqualTo(1);
        assertThat(r.late()).isEqualTo(1);
    }

    @Test
    void silentStoppedWindowsAreRecountedOnlyForTheSilentFill() {
        Rules twoWindows = new Rules(W, 60_000, 10_000, 65_536, 3_600_000, 0, 2 * W);
        event(0, "a", "d1", "DOWNTIME_START", 3);
        event(0, "b", "d1", "DOWNTIME_END", 62); // an hour later: the stop was open all along
        event(0, "c", "d1", "PIECE_PRODUCED", 70); // closes 10:60

        WindowRecount.Result r = WindowRecount.recount(records, twoWindows);

        assertThat(r.rows().keySet()).containsExactly(key("d1", 0), key("d1", 5), key("d1", 10), key("d1", 60));
        assertThat(r.rows().get(key("d1", 10)).downtimeMillis()).isEqualTo(W);
        assertThat(r.rows().get(key("d1", 60)).downtimeMillis()).isEqualTo(120_000);
    }

    @Test
    void aWindowIsClosedOnlyWhenEveryPartitionHasPassedIt() {
        event(0, "a", "d1", "PIECE_PRODUCED", 1);
        event(0, "b", "d1", "PIECE_PRODUCED", 30);
        event(1, "c", "d2", "PIECE_PRODUCED", 2); // partition 1 is still in 10:00

        WindowRecount.Result r = WindowRecount.recount(records, RULES);

        assertThat(r.rows()).isEmpty();
    }

    @Test
    void aRepeatCountsOnceWhileItsWindowIsOpenAndIsLateOnceTheWindowIsFinal() {
        event(0, "a", "d1", "PIECE_PRODUCED", 1);
        event(0, "a", "d1", "PIECE_PRODUCED", 1); // a producer's retry: its window is open
        event(0, "a", "d1", "PIECE_PRODUCED", 7); // the id again in another window: another event
        event(0, "z", "d1", "PIECE_PRODUCED", 20); // 10:00 is past its end and its lateness
        event(0, "a", "d1", "PIECE_PRODUCED", 1); // the retry again, once 10:00 is final

        WindowRecount.Result r = WindowRecount.recount(records, RULES);

        assertThat(r.duplicates()).isEqualTo(1);
        assertThat(r.late()).isEqualTo(1);
        assertThat(r.rejected()).containsEntry(RejectReason.DUPLICATE, 1L).containsEntry(RejectReason.LATE, 1L);
        assertThat(r.rows().get(key("d1", 0)).events()).isEqualTo(1);
        assertThat(r.rows().get(key("d1", 5)).events()).isEqualTo(1);
    }

    @Test
    void aRowTakesTheLineOfItsLastEventInArrivalOrderAndASilentWindowThatOfTheRowBefore() {
        lineEvent(0, "a", "d1", "L2", "PIECE_PRODUCED", 3);
        lineEvent(0, "b", "d1", "L1", "PIECE_PRODUCED", 1); // earlier in time, later in arrival
        lineEvent(0, "c", "d1", "L1", "DOWNTIME_START", 4);
        lineEvent(0, "d", "d1", "L3", "PIECE_PRODUCED", 11); // closes 10:00 and, still stopped, 10:05

        WindowRecount.Result r = WindowRecount.recount(records, RULES);

        assertThat(r.rows().get(key("d1", 0)).lineId()).isEqualTo("L1");
        assertThat(r.rows().get(key("d1", 5)).lineId())
                .as("silent window, from the carry")
                .isEqualTo("L1");
        assertThat(r.rows().get(key("d1", 5)).downtimeMillis()).isEqualTo(W);
    }

    @Test
    void aStopReportedWithinTheLatenessIsCarriedOnWhileItsWindowIsTheLatest() {
        event(0, "a", "d1", "PIECE_PRODUCED", 1);
        event(0, "b", "d2", "PIECE_PRODUCED", 5.3); // watermark 10:05:08: 10:00 has fired
        event(0, "c", "d1", "DOWNTIME_START", 4); // within the lateness; 10:00 is still d1's latest
        event(0, "d", "d1", "PIECE_PRODUCED", 11); // closes 10:05, in which d1 was silent

        WindowRecount.Result r = WindowRecount.recount(records, RULES);

        assertThat(r.rows().get(key("d1", 0)).downtimeMillis()).isEqualTo(60_000);
        assertThat(r.rows().get(key("d1", 5)).downtimeMillis()).as("carried on").isEqualTo(W);
    }

    @Test
    void aStopReportedWithinTheLatenessIsNotCarriedOnOnceALaterWindowWasWritten() {
        // Only possible with a lateness longer than a window. The job's CarryDowntime: rows of
        // later windows already written are not revisited.
        Rules longLateness = new Rules(W, 360_000, 10_000, 65_536, 3_600_000, 0, 7L * 24 * 3_600_000);
        event(0, "a", "d1", "PIECE_PRODUCED", 1);
        event(0, "b", "d1", "PIECE_PRODUCED", 6);
        event(0, "c", "d1", "PIECE_PRODUCED", 10.5); // watermark 10:10:20: 10:00 and 10:05 have fired
        event(0, "e", "d1", "DOWNTIME_START", 4); // within 10:00's lateness, but 10:05 was written
        event(0, "g", "d1", "PIECE_PRODUCED", 16); // closes 10:10

        WindowRecount.Result r = WindowRecount.recount(records, longLateness);

        assertThat(r.late()).isZero();
        assertThat(r.rows().get(key("d1", 0)).downtimeMillis()).isEqualTo(60_000);
        assertThat(r.rows().get(key("d1", 5)).downtimeMillis()).isZero();
        assertThat(r.rows().get(key("d1", 10)).downtimeMillis()).isZero();
    }

    @Test
    void leavesOutWhatTheJobsParserRejectsWithTheJobsLimits() {
        Rules small = new Rules(
                W,
                60_000,
                10_000,
                200,
                60_000,
                Instant.parse("2026-01-01T00:00:00Z").toEpochMilli(),
                7L * 24 * 3_600_000);
        processingTime = T0;
        event(0, "a", "d1", "PIECE_PRODUCED", 1.5); // 1.5 min ahead of the record's time: beyond 1 min
        raw(
                0,
                "d1",
                "{\"eventId\":\"b\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":\"2025-06-01T00:00:00Z\"}");
        raw(
                0,
                "d1",
                "{\"eventId\":\"c\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + T0
                        + ",\"note\":\"" + "x".repeat(150) + "\"}");
        raw(
                0,
                "d1",
                "{\"eventId\":\"\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + T0
                        + "}");
        raw(
                0,
                "d1",
                "{\"eventId\":\"e\",\"deviceId\":\"d1\",\"lineId\":\"L\\u0000\",\"type\":\"PIECE_PRODUCED\",\"ts\":"
                        + T0 + "}");
        raw(
                0,
                "d1",
                "{\"eventId\":\"f\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + T0
                        + "} x");
        raw(
                0,
                "d1",
                "{\"eventId\":\"g\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":\"+300000000-01-01T00:00:00Z\"}");
        event(0, "h", "d1", "PIECE_PRODUCED", 0.5); // the only one counted

        WindowRecount.Result r = WindowRecount.recount(records, small);

        assertThat(r.invalid()).isEqualTo(7);
        assertThat(r.counted()).isEqualTo(1);
    }

    private void lineEvent(int partition, String id, String device, String line, String type, double minute) {
        raw(
                partition,
                device,
                String.format(
                        "{\"eventId\":\"%s\",\"deviceId\":\"%s\",\"lineId\":\"%s\",\"type\":\"%s\",\"ts\":%d}",
                        id, device, line, type, T0 + Math.round(minute * 60_000)));
    }
}
