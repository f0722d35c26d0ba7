package io.lineflow.rules.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The field table against the event class and the format: every field of {@link DeviceEvent} is a
 * member of the table or a Kafka coordinate, every member travels through {@link
 * DeviceEventJson#toJson} and both readers, and exactly the required members are missed.
 */
class EventFieldTest {
    private static final long NOW = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final DeviceEventJson JSON =
            new DeviceEventJson(64 * 1024, Instant.parse("2000-01-01T00:00:00Z").toEpochMilli(), 3_600_000);
    /** The fields of {@link DeviceEvent} that are not in its JSON: where Kafka kept the record. */
    private static final Set<String> COORDINATES = Set.of("topic", "partition", "offset");

    @Test
    void everyFieldOfTheEventIsAMemberOrAKafkaCoordinate() {
        Set<String> fields = Arrays.stream(DeviceEvent.class.getDeclaredFields())
                .filter(f -> !Modifier.isStatic(f.getModifiers()))
                .map(Field::getName)
                .collect(Collectors.toSet());
        Set<String> members =
                Arrays.stream(EventField.values()).map(f -> f.jsonName).collect(Collectors.toSet());
        Set<String> expected = new HashSet<>(members);
        expected.addAll(COORDINATES);

        assertThat(members).doesNotContainAnyElementsOf(COORDINATES).hasSize(EventField.values().length);
        assertThat(fields).isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(EventField.class)
    void eachMemberTravelsThroughToJsonAndBothReaders(EventField field) throws ReflectiveOperationException {
        DeviceEvent base = base();
        DeviceEvent changed = base();
        Field javaField = DeviceEvent.class.getField(field.jsonName);
        javaField.set(changed, otherValue(field, javaField.get(base)));
        assertThat(javaField.get(changed)).isNotEqualTo(javaField.get(base));

        byte[] json = DeviceEventJson.toJson(changed);
        assertThat(PlainEventReader.read(json))
                .as("toJson writes the plain form")
                .isNotNull();
        for (String value : List.of(utf8(json), viaJackson(utf8(json)))) {
            ParsedRecord parsed = parse(changed.deviceId, value);
            assertThat(parsed.isAccepted()).as(parsed.toString()).isTrue();
            for (EventField member : EventField.values()) {
                Field f = DeviceEvent.class.getField(member.jsonName);
                assertThat(f.get(parsed.event))
                        .as(member.jsonName + " of " + value)
                        .isEqualTo(f.get(changed));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(EventField.class)
    void aRecordWithoutAMemberIsRejectedAsMissingItExactlyWhenItIsRequired(EventField field) {
        String json = utf8(DeviceEventJson.toJson(base()));
        String member = "(\"" + field.jsonName + "\"):(\"[^\"]*\"|[0-9]+)";
        String without = json.replaceFirst(member, "")
                .replace(",,", ",")
                .replace("{,", "{")
                .replace(",}", "}");
        String asNull = json.replaceFirst(member, "$1:null");
        assertThat(without).isNotEqualTo(json);
        assertThat(asNull).isNotEqualTo(json);

        for (String value : List.of(without, viaJackson(without), asNull)) {
            ParsedRecord parsed = parse(base().deviceId, value);
            if (field.kind.required) {
                assertThat(parsed.isAccepted()).as(value).isFalse();
                assertThat(parsed.rejected.reason).isEqualTo(RejectReason.MISSING_FIELD);
                assertThat(parsed.rejected.detail).isEqualTo(field.jsonName + " is missing");
            } else {
                assertThat(parsed.isAccepted()).as(value).isTrue();
            }
        }
    }

    /** An event with every member set, none to its default, and an event time the parser accepts. */
    private static DeviceEvent base() {
        return new DeviceEvent("e-1", "d1", "L1", EventType.DOWNTIME_START, NOW - 60_000, 3, "jam");
    }

    /** A value of {@code field}'s kind that differs from {@code was} and that the parser accepts. */
    private static Object otherValue(EventField field, Object was) {
        return switch (field.kind) {
            case ID, TEXT -> was + "-2";
            case TYPE -> EventType.values()[(((EventType) was).ordinal() + 1) % EventType.values().length];
            case TIME -> (long) was + 1;
            case COUNT -> (int) was + 1;
        };
    }

    /** The same record with an unknown member first, which only Jackson's path reads. */
    private static String viaJackson(String json) {
        String value = json.replaceFirst("\\{", "{\"unknown\":0,");
        assertThat(PlainEventReader.read(value.getBytes(StandardCharsets.UTF_8)))
                .isNull();
        return value;
    }

    private static ParsedRecord parse(String key, String value) {
        return JSON.parse(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), "t", 0, 1, NOW);
    }

    private static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
