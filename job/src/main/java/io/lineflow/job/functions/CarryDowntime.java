package io.lineflow.job.functions;

import io.lineflow.rules.Windows;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Computes each window's downtime, carrying an open stop from one window into the next.
 *
 * <p>A window's own events cannot tell whether the device was already stopped when the window
 * began: that is decided by the windows before it. This function sees each device's windows in
 * event-time order ({@link CountDeviceWindows} emits them as the watermark passes) and remembers whether
 * the last one ended with a stop open. While a stop stays open and the device sends nothing, it
 * emits the silent windows itself, each fully down, from an event-time timer at the end of each
 * (but not at the end of a bounded input, whose final watermark would fill windows forever).
 * A newer row that comes while a stop is open first gets the silent windows before it: when one
 * watermark step passes several window ends (a replay, a catch-up), the window operator emits the
 * later row before it forwards the watermark, so it arrives before the timer of the gap has fired.
 * The rows are then the same whatever the watermark's steps. (A provisional row fills its gap the
 * same way; should a filled window get events after all, its row comes again and replaces it.)
 *
 * <p>A window may come more than once: provisionally when its device went quiet, then from the
 * watermark, then again for each late event within the allowed lateness. Each time its downtime is
 * computed from the open-at-start flag remembered when it first came; when it is the device's
 * latest window, what it leaves open is updated too, so the next window starts from the final
 * figures.
 *
 * <p>Silent windows are written for at most {@code lineflow.downtime.silent-fill} after the
 * device's last window with events; beyond that nothing more is written until the device sends
 * again, and its next window still starts stopped. One stale {@code DOWNTIME_START} (a device clock
 * years behind) would otherwise fill every window since.
 *
 * <p>State per device: one small {@link Carry}, dropped as soon as no stop is open and the last
 * window's allowed lateness has passed, and the open-at-start flag of each window that may still
 * come again.
 *
 * <p>Limit: a window that comes again after a later window was written corrects its own row; rows
 * of later windows already written are not revisited.
 */
public class CarryDowntime extends KeyedProcessFunction<String, DeviceWindowStats, DeviceWindowStats> {
    private static final long serialVersionUID = 1L;

    private final long windowSizeMillis;
    private final long allowedLatenessMillis;
    private final long maxSilentWindows;

    private transient ValueState<Carry> carry;
    private transient MapState<Long, Boolean> openAtStartByWindow;

    /**
     * @param silentFillMillis how long after a device's last window with events silent stopped
     *     windows are still written ({@code lineflow.downtime.silent-fill}): whole windows only
     */
    public CarryDowntime(long windowSizeMillis, long allowedLatenessMillis, long silentFillMillis) {
        this.windowSizeMillis = windowSizeMillis;
        this.allowedLatenessMillis = allowedLatenessMillis;
        this.maxSilentWindows = Windows.maxSilentWindows(windowSizeMillis, silentFillMillis);
    }

    /** What a device's last window left open. */
    public static class Carry {
        public String lineId;
        public long lastWindowEnd;
        public boolean openAtEnd;
        /** Silent windows written since the last window with events. */
        public long silentWindows;

        public Carry() {}
    }

    @Override
    public void open(OpenContext openContext) {
        carry = getRuntimeContext().getState(new ValueStateDescriptor<>("carry", Carry.class));
        openAtStartByWindow =
                getRuntimeContext().getMapState(new MapStateDescriptor<>("open-at-start", Types.LONG, Types.BOOLEAN));
    }

    @Override
    public void processElement(DeviceWindowStats row, Context ctx, Collector<DeviceWindowStats> out) throws Exception {
        Carry c = carry.value();
        boolean newer = c == null || row.windowEnd > c.lastWindowEnd;
        boolean openAtStart;
        if (newer) {
            while (c != null
                    && c.openAtEnd
                    && c.lastWindowEnd < row.windowStart
                    && c.silentWindows < maxSilentWindows) {
                emitSilent(c, ctx, out);
            }
            openAtStart = c != null && c.openAtEnd;
            rememberOpenAtStart(row.windowStart, openAtStart, ctx);
        } else {
            // A window again: after a provisional row, or a re-firing within its allowed lateness.
            Boolean remembered = openAtStartByWindow.get(row.windowStart);
            openAtStart = remembered != null && remembered;
        }
        boolean openAtEnd = applyDowntime(row, openAtStart);
        out.collect(row);
        if (!newer && row.windowEnd != c.lastWindowEnd) {
            return;
        }
        if (c == null) {
            c = new Carry();
        }
        c.lineId = row.lineId;
        c.lastWindowEnd = row.windowEnd;
        c.openAtEnd = openAtEnd;
        c.silentWindows = 0;
        carry.update(c);
        // Either the next window's end (to fill it if the device stays silent while stopped), or
        // the end of this window's lateness (to drop the state once nothing is open).
        ctx.timerService()
                .registerEventTimeTimer(
                        openAtEnd ? row.windowEnd + windowSizeMillis - 1 : row.windowEnd - 1 + allowedLatenessMillis);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<DeviceWindowStats> out) throws Exception {
        dropExpiredOpenAtStart(timestamp);
        Carry c = carry.value();
        if (c == null) {
            return;
        }
        boolean endOfInput = ctx.timerService().currentWatermark() == Long.MAX_VALUE;
        if (c.openAtEnd
                && c.lastWindowEnd + windowSizeMillis - 1 == timestamp
                && !endOfInput
                && c.silentWindows < maxSilentWindows) {
            emitSilent(c, ctx, out);
            // A timer behind the watermark fires within the same watermark step, so a step over
            // several window ends fills each of them.
            ctx.timerService().registerEventTimeTimer(c.lastWindowEnd + windowSizeMillis - 1);
        } else if (!c.openAtEnd && timestamp >= c.lastWindowEnd - 1 + allowedLatenessMillis) {
            carry.clear();
        }
    }

    /** The device stayed stopped through the window after its last one and sent nothing in it. */
    private void emitSilent(Carry c, Context ctx, Collector<DeviceWindowStats> out) throws Exception {
        DeviceWindowStats silent = new DeviceWindowStats();
        silent.deviceId = ctx.getCurrentKey();
        silent.lineId = c.lineId;
        silent.windowStart = c.lastWindowEnd;
        silent.windowEnd = c.lastWindowEnd + windowSizeMillis;
        silent.downtimeMillis = windowSizeMillis;
        out.collect(silent);
        rememberOpenAtStart(silent.windowStart, true, ctx);
        c.lastWindowEnd = silent.windowEnd;
        c.silentWindows++;
        carry.update(c);
    }

    /**
     * Sets {@code row.downtimeMillis} from its transitions and drops them.
     *
     * @return whether a stop is still open at the window end
     */
    static boolean applyDowntime(DeviceWindowStats row, boolean openAtStart) {
        long[] transitions = row.transitions == null ? new long[0] : row.transitions;
        // An END with no START before it in the window proves the stop began earlier.
        boolean open = openAtStart || (transitions.length > 0 && !WindowAccumulator.isStart(transitions[0]));
        long since = row.windowStart;
        long down = 0;
        for (long t : transitions) {
            long ts = WindowAccumulator.transitionTime(t);
            if (WindowAccumulator.isStart(t)) {
                if (!open) {
                    open = true;
                    since = ts;
                }
            } else if (open) {
                down += ts - since;
                open = false;
            }
        }
        if (open) {
            down += row.windowEnd - since;
        }
        row.downtimeMillis = down;
        row.transitions = null;
        return open;
    }

    private void rememberOpenAtStart(long windowStart, boolean openAtStart, Context ctx) throws Exception {
        // Also without allowed lateness: a provisional row is followed by the watermark's.
        openAtStartByWindow.put(windowStart, openAtStart);
        ctx.timerService().registerEventTimeTimer(windowStart + windowSizeMillis - 1 + allowedLatenessMillis);
    }

    private void dropExpiredOpenAtStart(long timestamp) throws Exception {
        MapStates.removeWhere(
                openAtStartByWindow,
                (start, open) -> start + windowSizeMillis - 1 + allowedLatenessMillis <= timestamp);
    }
}
