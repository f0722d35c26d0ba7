package io.lineflow.job.functions;

import io.lineflow.rules.EventIds;
import io.lineflow.rules.Windows;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.event.RejectedEvent;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.time.Duration;
import java.util.Map;

/**
 * Deduplicates a device's events and counts them into tumbling event-time windows, one row per
 * device and window; repeats and late events go to {@link #REJECTED} with their reason.
 *
 * <p><b>Dedup.</b> An {@code eventId} is counted once per device and window: a producer's retry
 * repeats the event, time included, so it falls into the window of the original. The window keeps
 * the 64-bit fingerprints of its ids ({@link EventIds}) in its own state and drops them with it,
 * so the memory of ids lasts exactly as long as a repeat could still change a count: a repeat
 * that arrives once its window is final is rejected as {@link RejectReason#LATE}, like any event
 * of a final window. No processing time, no sweep timers, a few bytes per event.
 *
 * <p><b>Windows.</b> The semantics of Flink's {@code TumblingEventTimeWindows} with the event-time
 * trigger, allowed lateness and a late-data side output: a window's row is emitted when the
 * watermark passes its end; an event that arrives after that but within the allowed lateness is
 * counted and the corrected row emitted at once; an event later than that is rejected as
 * {@link RejectReason#LATE}; a window's state is dropped when its lateness has passed. Written as
 * one function rather than a keyBy, dedup and window operator because the profile showed the
 * window operator's per-event trigger and cleanup timers, and the record copy and second key
 * switch between the two operators, at about a fifth of the job's CPU: here each event costs the
 * state lookups and nothing else, and timers are set once per device and window (the idle
 * check's once per window and idle period).
 *
 * <p><b>Quiet windows.</b> The watermark is not part of a checkpoint and only moves with new
 * events, so after a restore, or whenever the input goes quiet, the last window of each device
 * would stay open until production resumes. Processing-time timers are checkpointed with the
 * keyed state and fire right after a restore when overdue, so each window also has an idle check:
 * once its end has passed on the wall clock and its device has sent nothing for it during the idle
 * time, its figures so far are emitted as a provisional row. The state stays; the watermark's
 * firing (or a later event within the allowed lateness) emits the row again and the sink's upsert
 * overwrites it, so the table ends exact. The watermark is never touched, so no event of a paused
 * backlog becomes late. The check is set when a window gets its first event and re-armed by its
 * own firing while events keep coming: one timer per window and idle period, not per event.
 */
public class CountDeviceWindows extends KeyedProcessFunction<String, DeviceEvent, DeviceWindowStats> {
    private static final long serialVersionUID = 1L;

    /** Repeats (DUPLICATE) and events for windows past their allowed lateness (LATE). */
    public static final OutputTag<RejectedEvent> REJECTED =
            new OutputTag<>("duplicate-or-late", Types.POJO(RejectedEvent.class));

    private final long windowMillis;
    private final long latenessMillis;
    private final long idleEmitMillis;

    private transient MapState<Long, WindowAccumulator> windowByStart;

    /** The last window start boxed as a state key: events come mostly in time order, so reused. */
    private transient Long lastStart;

    public CountDeviceWindows(Duration window, Duration allowedLateness, Duration idleEmit) {
        this.windowMillis = window.toMillis();
        this.latenessMillis = allowedLateness.toMillis();
        this.idleEmitMillis = idleEmit.toMillis();
    }

    @Override
    public void open(OpenContext openContext) {
        windowByStart = getRuntimeContext()
                .getMapState(
                        new MapStateDescriptor<>("window-by-start", Types.LONG, Types.POJO(WindowAccumulator.class)));
    }

    @Override
    public void processElement(DeviceEvent event, Context ctx, Collector<DeviceWindowStats> out) throws Exception {
        long start = Windows.start(event.ts, windowMillis);
        long lastMillis = start + windowMillis - 1; // the window's maxTimestamp
        long watermark = ctx.timerService().currentWatermark();
        if (lastMillis + latenessMillis <= watermark) {
            reject(ctx, event, RejectReason.LATE, "window of " + event.ts + " closed");
            return;
        }
        Long key = lastStart != null && lastStart == start ? lastStart : (lastStart = start);
        WindowAccumulator acc = windowByStart.get(key);
        if (acc == null) {
            acc = new WindowAccumulator();
            if (lastMillis > watermark) {
                ctx.timerService().registerEventTimeTimer(lastMillis);
            }
            ctx.timerService().registerEventTimeTimer(lastMillis + latenessMillis);
        }
        if (!acc.rememberId(EventIds.fingerprint(event.eventId))) {
            reject(ctx, event, RejectReason.DUPLICATE, "eventId " + event.eventId + " already counted in its window");
            return;
        }
        long now = ctx.timerService().currentProcessingTime();
        acc.lastSeenAt = now;
        if (acc.idleCheckAt == 0 && lastMillis > watermark) {
            acc.idleCheckAt = now + idleEmitMillis;
            ctx.timerService().registerProcessingTimeTimer(acc.idleCheckAt);
        }
        acc.lineId = event.lineId;
        acc.add(event.type, event.ts, event.count);
        // put() even though acc may be the stored object: RocksDB keeps only what is put.
        windowByStart.put(key, acc);
        if (lastMillis <= watermark) {
            // Late but within the allowed lateness: the corrected row replaces the one written.
            out.collect(row(ctx.getCurrentKey(), start, acc));
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<DeviceWindowStats> out) throws Exception {
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            emitQuietWindows(timestamp, ctx, out);
            return;
        }
        // One timer per timestamp and device: it may be one window's end and another's cleanup.
        for (Map.Entry<Long, WindowAccumulator> w : windowByStart.entries()) {
            if (w.getKey() + windowMillis - 1 == timestamp) {
                out.collect(row(ctx.getCurrentKey(), w.getKey(), w.getValue()));
            }
        }
        MapStates.removeWhere(windowByStart, (start, acc) -> start + windowMillis - 1 + latenessMillis <= timestamp);
    }

    /**
     * The idle checks due at {@code now}: a window whose end has passed on the wall clock and
     * which got no event for the idle time is emitted with its figures so far; one whose end or
     * quiet time lies ahead is checked again then; one the watermark already fired needs nothing.
     */
    private void emitQuietWindows(long now, OnTimerContext ctx, Collector<DeviceWindowStats> out) throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        for (Map.Entry<Long, WindowAccumulator> w : windowByStart.entries()) {
            WindowAccumulator acc = w.getValue();
            if (acc.idleCheckAt == 0 || acc.idleCheckAt > now) {
                continue;
            }
            long start = w.getKey();
            long due = Math.max(acc.lastSeenAt + idleEmitMillis, start + windowMillis);
            if (start + windowMillis - 1 <= watermark) {
                acc.idleCheckAt = 0;
            } else if (due <= now) {
                out.collect(row(ctx.getCurrentKey(), start, acc));
                acc.idleCheckAt = 0; // the next event of this window sets a new check
            } else {
                acc.idleCheckAt = due;
                ctx.timerService().registerProcessingTimeTimer(due);
            }
            windowByStart.put(start, acc);
        }
    }

    private static void reject(Context ctx, DeviceEvent event, RejectReason reason, String detail) {
        ctx.output(
                REJECTED,
                new RejectedEvent(
                        event.topic, event.partition, event.offset, DeviceEventJson.toJson(event), reason, detail));
    }

    private DeviceWindowStats row(String deviceId, long start, WindowAccumulator acc) {
        DeviceWindowStats row = new DeviceWindowStats();
        row.deviceId = deviceId;
        row.lineId = acc.lineId;
        row.windowStart = start;
        row.windowEnd = start + windowMillis;
        row.piecesProduced = acc.pieces;
        row.downtimeCount = acc.downtimeStarts;
        row.eventsSeen = acc.events;
        row.firstEventTs = acc.firstTs;
        row.lastEventTs = acc.lastTs;
        // WindowAccumulator replaces its transitions array on every change, never writes into it.
        row.transitions = acc.transitions;
        return row;
    }
}
