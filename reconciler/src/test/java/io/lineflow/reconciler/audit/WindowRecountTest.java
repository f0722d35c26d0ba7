package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class WindowRecountTest {
    private static final long T0 = Instant.parse("2026-11-01T10:00:00Z").toEpochMilli();
    private static final long W = 300_000;

    private final List<WindowRecount.Input> records = new ArrayList<>();

    private void event(int partition, String id, String device, String type, double minute) {
        String json = String.format("{\"eventId\":\"%s\",\"deviceId\":\"%s\",\"lineId\":\"L1\",\"type\":\"%s\",\"ts\":%d}",
                id, device, type, T0 + Math.round(minute * 60_000));
        raw(partition, device, json);
    }

    private void raw(int partition, String key, String value) {
        records.add(new WindowRecount.Input(partition, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
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

        WindowRecount.Result r = WindowRecount.recount(records, W, 60_000, 10_000);

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
    void aWindowIsClosedOnlyWhenEveryPartitionHasPassedIt() {
        event(0, "a", "d1", "PIECE_PRODUCED", 1);
        event(0, "b", "d1", "PIECE_PRODUCED", 30);
        event(1, "c", "d2", "PIECE_PRODUCED", 2); // partition 1 is still in 10:00

        WindowRecount.Result r = WindowRecount.recount(records, W, 60_000, 10_000);

        assertThat(r.rows()).isEmpty();
    }
}
