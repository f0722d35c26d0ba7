package io.lineflow.job.functions;

import java.util.Objects;

/**
 * One row of {@code device_window_stats}: the figures of one device in one window.
 *
 * <p>The window function fills everything but {@link #downtimeMillis}, and keeps the window's
 * downtime transitions in {@link #transitions}; {@link CarryDowntime} then knows whether a stop was
 * already open when the window began, computes the downtime and drops the transitions.
 */
public class DeviceWindowStats {
    public String deviceId;
    public String lineId;
    public long windowStart;
    public long windowEnd;
    public long piecesProduced;
    /** Stops that began in the window ({@code DOWNTIME_START} events). */
    public int downtimeCount;
    /** Milliseconds of the window during which the device was stopped. */
    public long downtimeMillis;

    public long eventsSeen;
    /** Epoch millis of the first and last counted event; null for a window without events. */
    public Long firstEventTs;

    public Long lastEventTs;
    /** Sorted downtime transitions, see {@link WindowAccumulator#transition}; null once applied. */
    public long[] transitions;

    public DeviceWindowStats() {}

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DeviceWindowStats)) {
            return false;
        }
        DeviceWindowStats s = (DeviceWindowStats) o;
        return windowStart == s.windowStart
                && windowEnd == s.windowEnd
                && piecesProduced == s.piecesProduced
                && downtimeCount == s.downtimeCount
                && downtimeMillis == s.downtimeMillis
                && eventsSeen == s.eventsSeen
                && Objects.equals(deviceId, s.deviceId)
                && Objects.equals(lineId, s.lineId)
                && Objects.equals(firstEventTs, s.firstEventTs)
                && Objects.equals(lastEventTs, s.lastEventTs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(deviceId, windowStart);
    }

    @Override
    public String toString() {
        return String.format(
                "Stats{%s/%s [%d,%d) pieces=%d stops=%d downMs=%d events=%d first=%s last=%s}",
                lineId,
                deviceId,
                windowStart,
                windowEnd,
                piecesProduced,
                downtimeCount,
                downtimeMillis,
                eventsSeen,
                firstEventTs,
                lastEventTs);
    }
}
