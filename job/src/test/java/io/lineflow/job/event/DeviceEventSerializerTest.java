package io.lineflow.job.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventField;
import io.lineflow.rules.event.EventType;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

/**
 * Flink's own serializer test suite (copies, round trips, snapshots, duplicates, threads), the
 * format's compact parts through the buffers the network stack uses, and every field of the event,
 * found by reflection, carried by each way the serializer moves an event.
 */
class DeviceEventSerializerTest extends SerializerTestBase<DeviceEvent> {
    private static final String TOPIC = "device-events";

    /** The instance fields of {@link DeviceEvent}: a field added to it is tested without a word here. */
    static List<Field> eventFields() {
        return Arrays.stream(DeviceEvent.class.getDeclaredFields())
                .filter(f -> !Modifier.isStatic(f.getModifiers()))
                .toList();
    }

    @Test
    void theFieldsFoundHoldEveryMemberOfTheEventTable() {
        assertThat(eventFields().stream().map(Field::getName))
                .containsAll(
                        Arrays.stream(EventField.values()).map(f -> f.jsonName).toList());
    }

    /**
     * An event that differs from {@link #full()} in {@code field} alone comes back with that field,
     * and every other, from serialize/deserialize (into a new and into a reused event that holds
     * other values), both copies and the copy between streams. Fields are compared one by one, not
     * with {@code equals}, which could miss the same field the serializer misses.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("eventFields")
    void everyFieldOfTheEventIsCarriedThroughEachPath(Field field) throws Exception {
        DeviceEventSerializer serializer = new DeviceEventSerializer(TOPIC);
        DeviceEvent changed = full();
        field.set(changed, otherValue(field.get(changed)));
        assertThat(field.get(changed)).isNotEqualTo(field.get(full()));

        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(changed, out);
        byte[] bytes = out.getCopyOfBuffer();
        DataOutputSerializer copied = new DataOutputSerializer(64);
        serializer.copy(new DataInputDeserializer(bytes), copied);

        assertSameFields(serializer.deserialize(new DataInputDeserializer(bytes)), changed, "deserialize");
        assertSameFields(serializer.deserialize(full(), new DataInputDeserializer(bytes)), changed, "reuse");
        assertSameFields(serializer.copy(changed), changed, "copy");
        assertSameFields(serializer.copy(changed, full()), changed, "copy into reuse");
        assertSameFields(
                serializer.deserialize(new DataInputDeserializer(copied.getCopyOfBuffer())), changed, "stream copy");
    }

    /** An event with every field set, none to its type's default; its topic is the serializer's. */
    private static DeviceEvent full() {
        return new DeviceEvent("e-1", "press-07", "L1", EventType.DOWNTIME_START, 1_764_000_000_000L, 3, "jam")
                .at(TOPIC, 2, 41L);
    }

    /** A value of {@code was}'s type that differs from it; fails for a type this test does not know yet. */
    private static Object otherValue(Object was) {
        if (was instanceof String s) {
            return s + "-2"; // for the topic, one the serializer writes out in full
        }
        if (was instanceof Integer i) {
            return i + 1;
        }
        if (was instanceof Long l) {
            return l + 1;
        }
        if (was instanceof EventType t) {
            return EventType.values()[(t.ordinal() + 1) % EventType.values().length];
        }
        throw new AssertionError("no other value for " + was + ": teach otherValue the new field's type");
    }

    private static void assertSameFields(DeviceEvent actual, DeviceEvent expected, String path)
            throws IllegalAccessException {
        for (Field f : eventFields()) {
            assertThat(f.get(actual)).as(path + ": " + f.getName()).isEqualTo(f.get(expected));
        }
    }

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
