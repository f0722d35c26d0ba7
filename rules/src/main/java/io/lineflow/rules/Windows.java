package io.lineflow.rules;

/** Window arithmetic shared by the job, the audit's recount and the tests. */
public final class Windows {
    private Windows() {}

    /**
     * The start of the tumbling window of {@code sizeMillis} (aligned to the epoch, no offset) that
     * holds {@code ts}; negative times included, as Flink's tumbling windows do.
     */
    public static long start(long ts, long sizeMillis) {
        return ts - Math.floorMod(ts, sizeMillis);
    }

    /**
     * The silent stopped windows written after a device's last window with events, at most:
     * {@code lineflow.downtime.silent-fill} in whole windows.
     */
    public static long maxSilentWindows(long sizeMillis, long silentFillMillis) {
        return silentFillMillis / sizeMillis;
    }
}
