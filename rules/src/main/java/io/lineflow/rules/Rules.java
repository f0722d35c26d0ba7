package io.lineflow.rules;

import io.lineflow.rules.event.DeviceEventJson;

import java.time.Duration;
import java.time.Instant;

/**
 * The settings lineflow's rules depend on, with their one set of defaults (the dedup rule has
 * none: an event id is counted once per device and window): the job's {@code
 * lineflow.*} options take their defaults from here, and the audit's recount takes the same
 * settings (its command line mirrors them).
 *
 * @param windowMillis tumbling window length ({@code lineflow.window.size})
 * @param latenessMillis how long after its end a window still takes events ({@code
 *     lineflow.window.allowed-lateness})
 * @param outOfOrdernessMillis the watermark's bound ({@code lineflow.watermark.out-of-orderness})
 * @param maxBytes the largest record value accepted ({@code lineflow.events.max-bytes})
 * @param maxFutureMillis how far ahead of the wall clock an event may be ({@code
 *     lineflow.events.max-future})
 * @param earliestMillis the earliest event time accepted ({@code lineflow.events.earliest})
 * @param silentFillMillis how long silent stopped windows are written after a device's last
 *     window with events ({@code lineflow.downtime.silent-fill})
 */
public record Rules(
        long windowMillis,
        long latenessMillis,
        long outOfOrdernessMillis,
        int maxBytes,
        long maxFutureMillis,
        long earliestMillis,
        long silentFillMillis) {
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);
    public static final Duration DEFAULT_LATENESS = Duration.ofMinutes(1);
    public static final Duration DEFAULT_OUT_OF_ORDERNESS = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_BYTES = 64 * 1024;
    public static final Duration DEFAULT_MAX_FUTURE = Duration.ofHours(1);
    public static final Instant DEFAULT_EARLIEST = Instant.parse("2000-01-01T00:00:00Z");
    public static final Duration DEFAULT_SILENT_FILL = Duration.ofDays(7);

    /** Every setting at its default. */
    public static Rules defaults() {
        return new Rules(
                DEFAULT_WINDOW.toMillis(),
                DEFAULT_LATENESS.toMillis(),
                DEFAULT_OUT_OF_ORDERNESS.toMillis(),
                DEFAULT_MAX_BYTES,
                DEFAULT_MAX_FUTURE.toMillis(),
                DEFAULT_EARLIEST.toEpochMilli(),
                DEFAULT_SILENT_FILL.toMillis());
    }

    /** The silent stopped windows written after a device's last window with events, at most. */
    public long maxSilentWindows() {
        return Windows.maxSilentWindows(windowMillis, silentFillMillis);
    }

    /** The event parser with these limits. */
    public DeviceEventJson parser() {
        return new DeviceEventJson(maxBytes, earliestMillis, maxFutureMillis);
    }
}
