package io.lineflow.job.functions;

import io.lineflow.job.event.DeviceEvent;
import io.lineflow.job.event.DeviceEventJson;
import io.lineflow.job.event.RejectReason;
import io.lineflow.job.event.RejectedEvent;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Passes each {@code eventId} of a device once within the dedup horizon; repeats (e.g. producer
 * retries) go to {@link #DUPLICATES} so they are kept, not dropped.
 *
 * <p>Each device keeps its seen ids with the processing time at which they expire. Expiry is swept
 * by a processing-time timer per device, at most {@link #SWEEPS_PER_HORIZON} times per horizon,
 * rather than by state TTL: TTL's incremental cleanup re-copies a device's whole map of ids on the
 * heap backend at every state access, which cost most of the job's CPU. An id older than the
 * horizon counts as unseen even before the sweep removes it.
 */
public class DeduplicateEvents extends KeyedProcessFunction<String, DeviceEvent, DeviceEvent> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<RejectedEvent> DUPLICATES =
            new OutputTag<>("duplicates", Types.POJO(RejectedEvent.class));

    /** State holds ids for at most horizon × (1 + 1/SWEEPS_PER_HORIZON). */
    static final int SWEEPS_PER_HORIZON = 4;

    private final long horizonMillis;
    private final long sweepEvery;
    private transient MapState<String, Long> expiryById;

    public DeduplicateEvents(Duration horizon) {
        this.horizonMillis = horizon.toMillis();
        this.sweepEvery = Math.max(1, horizonMillis / SWEEPS_PER_HORIZON);
    }

    @Override
    public void open(Configuration parameters) {
        expiryById =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "event-id-expiry", Types.STRING, Types.LONG));
    }

    @Override
    public void processElement(DeviceEvent event, Context ctx, Collector<DeviceEvent> out)
            throws Exception {
        long now = ctx.timerService().currentProcessingTime();
        Long expiry = expiryById.get(event.eventId);
        if (expiry != null && expiry > now) {
            ctx.output(
                    DUPLICATES,
                    new RejectedEvent(
                            event.topic,
                            event.partition,
                            event.offset,
                            DeviceEventJson.toJson(event),
                            RejectReason.DUPLICATE,
                            "eventId " + event.eventId + " already counted"));
            return;
        }
        long expires = now + horizonMillis;
        expiryById.put(event.eventId, expires);
        // Rounded up to the sweep period: one timer per device and period, however many events.
        ctx.timerService().registerProcessingTimeTimer(expires - Math.floorMod(expires, sweepEvery) + sweepEvery);
        out.collect(event);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<DeviceEvent> out)
            throws Exception {
        List<String> expired = new ArrayList<>();
        for (Map.Entry<String, Long> e : expiryById.entries()) {
            if (e.getValue() <= timestamp) {
                expired.add(e.getKey());
            }
        }
        // remove(), not the iterator's: it also drops the device's map once it is empty
        for (String id : expired) {
            expiryById.remove(id);
        }
    }
}
