package io.lineflow.rules.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.stream.Stream;

class DeviceEventJsonTest {
    private static final long NOW = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final DeviceEventJson JSON =
            new DeviceEventJson(1024, Instant.parse("2000-01-01T00:00:00Z").toEpochMilli(), 3_600_000);

    private static ParsedRecord parse(String key, String value) {
        return JSON.parse(
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                "device-events",
                3,
                42,
                NOW);
    }

    @Test
    void parsesIsoTimestampAndKeepsKafkaCoordinates() {
        ParsedRecord r = parse(
                "press-07",
                "{\"eventId\":\"e1\",\"deviceId\":\"press-07\",\"lineId\":\"L1\","
                        + "\"type\":\"PIECE_PRODUCED\",\"ts\":\"2026-11-01T10:30:36.123Z\","
                        + "\"count\":3,\"extra\":{\"ignored\":[1,2]}}");
        assertThat(r.isAccepted()).isTrue();
        DeviceEvent e = r.event;
        assertThat(e.eventId).isEqualTo("e1");
        assertThat(e.type).isEqualTo(EventType.PIECE_PRODUCED);
        assertThat(e.ts).isEqualTo(Instant.parse("2026-11-01T10:30:36.123Z").toEpochMilli());
        assertThat(e.count).isEqualTo(3);
        assertThat(e.topic).isEqualTo("device-events");
        assertThat(e.partition).isEqualTo(3);
        assertThat(e.offset).isEqualTo(42);
    }

    @Test
    void parsesEpochMillisAndDefaultsCountToOne() {
        ParsedRecord r = parse(
                "press-07",
                "{\"eventId\":\"e2\",\"deviceId\":\"press-07\",\"lineId\":\"L1\","
                        + "\"type\":\"DOWNTIME_START\",\"ts\":1761993036123,\"reason\":\"jam\"}");
        assertThat(r.isAccepted()).isTrue();
        assertThat(r.event.ts).isEqualTo(1761993036123L);
        assertThat(r.event.count).isEqualTo(1);
        assertThat(r.event.reason).isEqualTo("jam");
    }

    @Test
    void writtenJsonParsesBackToTheSameEvent() {
        DeviceEvent e = new DeviceEvent("e9", "press-07", "L1", EventType.DOWNTIME_END, 1761993036123L, 0, "ok");
        ParsedRecord back =
                JSON.parse("press-07".getBytes(StandardCharsets.UTF_8), DeviceEventJson.toJson(e), "t", 0, 7, NOW);
        assertThat(back.event).isEqualTo(e.at("t", 0, 7));
    }

    static Stream<Arguments> badInput() {
        String ok = "\"eventId\":\"e\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\"";
        return Stream.of(
                Arguments.of("d1", "not json at all", RejectReason.MALFORMED_JSON),
                Arguments.of("d1", "{\"eventId\":\"e\",", RejectReason.MALFORMED_JSON),
                Arguments.of("d1", "[1,2,3]", RejectReason.MALFORMED_JSON),
                Arguments.of("d1", "{" + ok + ",\"ts\":1}{}", RejectReason.MALFORMED_JSON),
                Arguments.of("d1", null, RejectReason.MALFORMED_JSON),
                Arguments.of("d1", "{" + ok + "}", RejectReason.MISSING_FIELD),
                Arguments.of(
                        "d1",
                        "{\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":1}",
                        RejectReason.MISSING_FIELD),
                Arguments.of("d1", "{" + ok + ",\"ts\":null}", RejectReason.MISSING_FIELD),
                Arguments.of("d1", "{" + ok + ",\"ts\":true}", RejectReason.WRONG_TYPE),
                Arguments.of("d1", "{" + ok + ",\"ts\":\"yesterday\"}", RejectReason.WRONG_TYPE),
                Arguments.of("d1", "{" + ok + ",\"ts\":1,\"count\":\"3\"}", RejectReason.WRONG_TYPE),
                Arguments.of("d1", "{" + ok + ",\"ts\":1,\"count\":1.5}", RejectReason.WRONG_TYPE),
                Arguments.of(
                        "d1",
                        "{\"eventId\":7,\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":1}",
                        RejectReason.WRONG_TYPE),
                Arguments.of(
                        "d1",
                        "{\"eventId\":\"e\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"EXPLODED\",\"ts\":1}",
                        RejectReason.UNKNOWN_TYPE),
                Arguments.of("d1", "{" + ok + ",\"ts\":1,\"count\":-2}", RejectReason.NEGATIVE_COUNT),
                Arguments.of("d1", "{" + ok + ",\"ts\":\"2099-01-01T00:00:00Z\"}", RejectReason.FUTURE_TIMESTAMP),
                Arguments.of(
                        "d1", "{" + ok + ",\"ts\":1,\"pad\":\"" + "x".repeat(1100) + "\"}", RejectReason.OVERSIZED),
                Arguments.of(null, "{" + ok + ",\"ts\":1}", RejectReason.NULL_KEY),
                Arguments.of("d2", "{" + ok + ",\"ts\":1764504000000}", RejectReason.KEY_MISMATCH));
    }

    @ParameterizedTest(name = "{2}: {1}")
    @MethodSource("badInput")
    void rejectsBadInputWithReasonAndRawBytes(String key, String value, RejectReason reason) {
        ParsedRecord r = parse(key, value);
        assertThat(r.isAccepted()).isFalse();
        assertThat(r.rejected.reason).isEqualTo(reason);
        assertThat(r.rejected.detail).isNotBlank();
        assertThat(r.rejected.raw).isEqualTo(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        assertThat(r.rejected.topic).isEqualTo("device-events");
        assertThat(r.rejected.partition).isEqualTo(3);
        assertThat(r.rejected.offset).isEqualTo(42);
    }

    @Test
    void aTimestampJustInsideTheFutureToleranceIsAccepted() {
        String value = "{\"eventId\":\"e\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":"
                + (NOW + 3_599_000) + "}";
        assertThat(parse("d1", value).isAccepted()).isTrue();
    }

    private static String event(String deviceId, String lineId, String ts) {
        return "{\"eventId\":\"e\",\"deviceId\":" + deviceId + ",\"lineId\":" + lineId
                + ",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + "}";
    }

    static Stream<Arguments> poison() {
        return Stream.of(
                // Epoch millis of these do not fit in a long: Instant.toEpochMilli threw.
                Arguments.of(
                        "d1", event("\"d1\"", "\"L1\"", "\"+300000000-01-01T00:00:00Z\""), "TIMESTAMP_OUT_OF_RANGE"),
                Arguments.of(
                        "d1", event("\"d1\"", "\"L1\"", "\"-300000000-01-01T00:00:00Z\""), "TIMESTAMP_OUT_OF_RANGE"),
                // Fits in a long but lies before year 1: outside timestamptz, and ts << 1 overflows.
                Arguments.of("d1", event("\"d1\"", "\"L1\"", "-300000000000000"), "TIMESTAMP_OUT_OF_RANGE"),
                Arguments.of("d1", event("\"d1\"", "\"L1\"", String.valueOf(Long.MIN_VALUE)), "TIMESTAMP_OUT_OF_RANGE"),
                Arguments.of("d1", event("\"d1\"", "\"L1\"", "-1"), "TIMESTAMP_OUT_OF_RANGE"),
                Arguments.of("d1", event("\"d1\"", "\"L1\"", "1" + "0".repeat(30)), "TIMESTAMP_OUT_OF_RANGE"),
                // Text PostgreSQL refuses in a text column.
                Arguments.of("d1", event("\"d1\"", "\"L\\u00001\"", "1764504000000"), "INVALID_TEXT"),
                Arguments.of("d\u00001", event("\"d\\u00001\"", "\"L1\"", "1764504000000"), "INVALID_TEXT"),
                Arguments.of("d1", event("\"d1\"", "\"L\\ud8001\"", "1764504000000"), "INVALID_TEXT"),
                Arguments.of(
                        "d1",
                        event("\"d1\"", "\"L1\"", "1764504000000").replace("\"e\"", "\"e\\u0000\""),
                        "INVALID_TEXT"),
                Arguments.of(
                        "d1",
                        event("\"d1\"", "\"L1\"", "1764504000000").replace("}", ",\"reason\":\"\\u0000\"}"),
                        "INVALID_TEXT"),
                // A count beyond a long was MALFORMED_JSON: the JSON is well formed.
                Arguments.of(
                        "d1",
                        event("\"d1\"", "\"L1\"", "1764504000000").replace("}", ",\"count\":1" + "0".repeat(30) + "}"),
                        "WRONG_TYPE"));
    }

    @ParameterizedTest(name = "{2}: {1}")
    @MethodSource("poison")
    void rejectsPoisonRecordsInsteadOfThrowingOrAcceptingThem(String key, String value, String reason) {
        ParsedRecord r = parse(key, value);
        assertThat(r.isAccepted()).as("accepted: %s", r).isFalse();
        assertThat(r.rejected.reason.name()).isEqualTo(reason);
        assertThat(r.rejected.raw).isEqualTo(value.getBytes(StandardCharsets.UTF_8));
    }

    private static String withType(String typeJson) {
        return "{\"eventId\":\"e\",\"deviceId\":\"d1\",\"lineId\":\"L1\",\"type\":" + typeJson
                + ",\"ts\":1764504000000}";
    }

    @ParameterizedTest
    @EnumSource(EventType.class)
    void everyEventTypeIsReadByItsName(EventType type) {
        assertThat(parse("d1", withType("\"" + type.name() + "\"")).event.type).isEqualTo(type);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PIECE_PRODUCE", "PIECE_PRODUCEDX", "DOWNTIME_EN", "DOWNTIME_ENDS", "piece_produced", ""})
    void aTypeThatIsOnlyPartOrMoreOfAKnownNameIsUnknown(String type) {
        ParsedRecord r = parse("d1", withType("\"" + type + "\""));
        assertThat(r.rejected.reason).isEqualTo(RejectReason.UNKNOWN_TYPE);
        assertThat(r.rejected.detail).isEqualTo("type '" + type + "' is unknown");
    }

    @Test
    void aTypeWrittenWithAnEscapeIsReadAsTheNameItSpells() {
        assertThat(parse("d1", withType("\"PIECE\\u005fPRODUCED\"")).event.type).isEqualTo(EventType.PIECE_PRODUCED);
    }

    @Test
    void aLaterTypeReplacesAnEarlierOne() {
        String value = withType("\"EXPLODED\"").replace("{", "{\"type\":\"DOWNTIME_END\",");
        assertThat(parse("d1", value).rejected.detail).isEqualTo("type 'EXPLODED' is unknown");
        value = withType("\"DOWNTIME_END\"").replace("{", "{\"type\":\"EXPLODED\",");
        assertThat(parse("d1", value).event.type).isEqualTo(EventType.DOWNTIME_END);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"presse-é\"", "\"presse-\\u00e9\""})
    void aNonAsciiKeyMatchesTheDeviceIdItEncodes(String deviceIdJson) {
        ParsedRecord r = parse("presse-é", event(deviceIdJson, "\"L1\"", "1764504000000"));
        assertThat(r.isAccepted()).as("%s", r).isTrue();
        assertThat(r.event.deviceId).isEqualTo("presse-é");
    }

    static Stream<Arguments> keyMismatches() {
        return Stream.of(
                Arguments.of("presse-è".getBytes(StandardCharsets.UTF_8), "presse-é", "presse-è"),
                // As many bytes as the id has chars, but not its UTF-8.
                Arguments.of("presse-x".getBytes(StandardCharsets.UTF_8), "presse-é", "presse-x"),
                // é in ISO-8859-1: not UTF-8, so it decodes to U+FFFD, not to é.
                Arguments.of(new byte[] {'d', (byte) 0xE9}, "dé", "d\uFFFD"),
                Arguments.of("d2".getBytes(StandardCharsets.UTF_8), "d1", "d2"),
                Arguments.of("d1 ".getBytes(StandardCharsets.UTF_8), "d1", "d1 "));
    }

    @ParameterizedTest
    @MethodSource("keyMismatches")
    void aKeyThatIsNotTheDeviceIdInUtf8IsAMismatchQuotingItsText(byte[] key, String deviceId, String keyText) {
        String value = event("\"" + deviceId + "\"", "\"L1\"", "1764504000000");
        ParsedRecord r = JSON.parse(key, value.getBytes(StandardCharsets.UTF_8), "device-events", 3, 42, NOW);
        assertThat(r.rejected.reason).isEqualTo(RejectReason.KEY_MISMATCH);
        assertThat(r.rejected.detail).isEqualTo("key '" + keyText + "' differs from deviceId '" + deviceId + "'");
    }

    @Test
    void aKeyMismatchQuotingANulStillGivesADetailPostgresCanStore() {
        ParsedRecord r = parse("d\u0000x", event("\"d1\"", "\"L1\"", "1764504000000"));
        assertThat(r.rejected.reason).isEqualTo(RejectReason.KEY_MISMATCH);
        assertThat(r.rejected.detail).doesNotContain("\u0000").contains("d\\u0000x");
    }
}
