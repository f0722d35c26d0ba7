package io.lineflow.job.functions;

import io.lineflow.job.event.DeviceEvent;
import io.lineflow.job.event.DeviceEventJson;
import io.lineflow.job.event.RejectReason;
import io.lineflow.job.event.RejectedEvent;

import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.time.Duration;

/**
 * Passes each {@code eventId} of a device once within the dedup horizon; repeats (e.g. producer
 * retries) go to {@link #DUPLICATES} so they are kept, not dropped. The seen ids expire by state
 * TTL, so the state stays bounded by the event rate times the horizon.
 */
public class DeduplicateEvents extends KeyedProcessFunction<String, DeviceEvent, DeviceEvent> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<RejectedEvent> DUPLICATES =
            new OutputTag<>("duplicates", Types.POJO(RejectedEvent.class));

    private final Duration horizon;
    private transient MapState<String, Boolean> seen;

    public DeduplicateEvents(Duration horizon) {
        this.horizon = horizon;
    }

    @Override
    public void open(Configuration parameters) {
        MapStateDescriptor<String, Boolean> descriptor =
                new MapStateDescriptor<>("seen-event-ids", Types.STRING, Types.BOOLEAN);
        descriptor.enableTimeToLive(
                StateTtlConfig.newBuilder(horizon)
                        .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
                        .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
                        .cleanupFullSnapshot()
                        // One device per state access, not ten: on the heap backend each visit
                        // copies that device's whole map of seen ids, so ten cost 85% of the CPU.
                        // Expired ids are never returned either way; this only paces the cleanup.
                        .cleanupIncrementally(1, false)
                        .cleanupInRocksdbCompactFilter(1000)
                        .build());
        seen = getRuntimeContext().getMapState(descriptor);
    }

    @Override
    public void processElement(DeviceEvent event, Context ctx, Collector<DeviceEvent> out)
            throws Exception {
        if (seen.contains(event.eventId)) {
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
        seen.put(event.eventId, Boolean.TRUE);
        out.collect(event);
    }
}
