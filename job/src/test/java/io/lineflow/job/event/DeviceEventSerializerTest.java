package io.lineflow.job.event;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's own serializer test suite (copies, round trips, snapshots, duplicates, threads). */
class DeviceEventSerializerTest extends SerializerTestBase<DeviceEvent> {

    @Override
    protected TypeSerializer<DeviceEvent> createSerializer() {
        return new DeviceEventSerializer();
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<DeviceEvent> getTypeClass() {
        return DeviceEvent.class;
    }

    @Override
    protected DeviceEvent[] getTestData() {
        return new DeviceEvent[] {
            new DeviceEvent("e-1", "press-07", "L1", EventType.PIECE_PRODUCED, 1_764_000_000_000L, 3, null)
                    .at("device-events", 2, 41L),
            new DeviceEvent("e-2", "press-07", "L1", EventType.DOWNTIME_START, -5L, 0, "Störung: Stau ⚙")
                    .at("device-events", 0, Long.MAX_VALUE),
            new DeviceEvent("", "d", "", EventType.DOWNTIME_END, Long.MIN_VALUE, Integer.MAX_VALUE, "x".repeat(70_000))
                    .at(null, -1, 0L),
            new DeviceEvent(), // every field null or zero
        };
    }
}
