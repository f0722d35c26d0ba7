package io.lineflow.job.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

import java.io.IOException;

/**
 * Flink's own serializer test suite (copies, round trips, snapshots, duplicates, threads), and the
 * format's compact parts through the buffers the network stack uses.
 */
class DeviceEventSerializerTest extends SerializerTestBase<DeviceEvent> {

    @Test
    void theJobsTopicTravelsAsOneByteAndEveryOtherTopicInFull() throws IOException {
        DeviceEventSerializer serializer = new DeviceEventSerializer("device-events");
        DeviceEvent ours = new DeviceEvent("e-1", "press-07", "L1", EventType.PIECE_PRODUCED, 5L, 1, null)
                .at("device-events", 2, 41L);
        DeviceEvent other = new DeviceEvent("e-1", "press-07", "L1", EventType.PIECE_PRODUCED, 5L, 1, null)
                .at("device-EVENTS", 2, 41L);
        assertThat(roundTrip(serializer, other) - roundTrip(serializer, ours)).isEqualTo(1 + "device-events".length());
        // With no topic of its own, or another one, the serializer writes every topic out.
        for (DeviceEvent e : getTestData()) {
            roundTrip(new DeviceEventSerializer(null), e);
            roundTrip(new DeviceEventSerializer("other-topic"), e);
        }
    }

    /** Serializes {@code e}, checks that it reads back equal, and returns its size in bytes. */
    private static int roundTrip(DeviceEventSerializer serializer, DeviceEvent e) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        serializer.serialize(e, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        assertThat(serializer.deserialize(in)).isEqualTo(e);
        assertThat(in.available()).isZero();
        return out.length();
    }

    @Override
    protected TypeSerializer<DeviceEvent> createSerializer() {
        return new DeviceEventSerializer("device-events");
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
            new DeviceEvent("e-3", "press-08", "L2", EventType.PIECE_PRODUCED, 0L, 1, null).at("other-topic", 1, 7L),
            new DeviceEvent(
                            "e-4",
                            "x".repeat(127),
                            "y".repeat(128),
                            EventType.PIECE_PRODUCED,
                            0L,
                            1,
                            "z".repeat(16_384))
                    .at("", 0, 0L), // lengths at the varint's byte boundaries, an empty topic
            new DeviceEvent(), // every field null or zero
        };
    }
}
