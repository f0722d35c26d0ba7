package io.lineflow.testing;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;

import java.time.Instant;

/** Readable test events: times in minutes after {@link #T0}. */
public final class TestEvents {
    private TestEvents() {}

    /** 2026-11-01T10:00:00Z, a window boundary for every window size that divides an hour. */
    public static final long T0 = Instant.parse("2026-11-01T10:00:00Z").toEpochMilli();

    /** Epoch millis {@code minutes} after {@link #T0}. */
    public static long t(double minutes) {
        return T0 + Math.round(minutes * 60_000);
    }

    public static DeviceEvent piece(String eventId, String device, double minutes, int count) {
        return new DeviceEvent(eventId, device, line(device), EventType.PIECE_PRODUCED, t(minutes), count, null);
    }

    public static DeviceEvent stopStart(String eventId, String device, double minutes) {
        return new DeviceEvent(eventId, device, line(device), EventType.DOWNTIME_START, t(minutes), 0, "jam");
    }

    public static DeviceEvent stopEnd(String eventId, String device, double minutes) {
        return new DeviceEvent(eventId, device, line(device), EventType.DOWNTIME_END, t(minutes), 0, null);
    }

    /** Every test device belongs to line L1. */
    public static String line(String device) {
        return "L1";
    }
}
