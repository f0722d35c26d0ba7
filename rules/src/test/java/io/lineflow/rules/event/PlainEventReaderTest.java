package io.lineflow.rules.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.stream.Stream;

/**
 * The plain form's reader against Jackson's path: a record must parse the same either way. An
 * unknown member sends a record to Jackson's path (the reader leaves unknown fields to it, and
 * Jackson ignores them), so each record is compared with itself plus one.
 */
class PlainEventReaderTest {
    private static final long NOW = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final DeviceEventJson JSON =
            new DeviceEventJson(64 * 1024, Instant.parse("2000-01-01T00:00:00Z").toEpochMilli(), 3_600_000);
    private static final String E = "\"eventId\":\"e-1\"";
    private static final String D = "\"deviceId\":\"d1\"";
    private static final String L = "\"lineId\":\"L1\"";
    private static final String T = "\"type\":\"PIECE_PRODUCED\"";
    private static final String TS = "\"ts\":1764504000000";

    private static String object(String... members) {
        return "{" + String.join(",", members) + "}";
    }

    static Stream<Arguments> plain() {
        return Stream.of(
                        new String(
                                DeviceEventJson.toJson(new DeviceEvent(
                                        "e-1", "d1", "L1", EventType.DOWNTIME_START, 1764504000000L, 1, "jam")),
                                StandardCharsets.UTF_8),
                        object(TS, T, L, D, E, "\"count\":0"),
                        " \t{ \"eventId\" : \"e-1\" ,\n\"deviceId\":\r\n\"d1\",\"lineId\":\"L1\",\"type\":\"DOWNTIME_END\","
                                + TS + " }\n",
                        object(E, D, L, T, TS, "\"count\":2147483647"),
                        object(E, D, L, T, "\"ts\":0"), // TIMESTAMP_OUT_OF_RANGE
                        object(E, D, L, T, "\"ts\":999999999999999999"), // 18 digits: FUTURE_TIMESTAMP
                        object(E, D, T, TS), // MISSING_FIELD lineId
                        object(E, "\"deviceId\":\"d2\"", L, T, TS), // KEY_MISMATCH
                        object("\"eventId\":\"\"", D, L, T, TS), // INVALID_TEXT: empty
                        object("\"eventId\":\" !#/09:@AZ[]^_`az{|}~\"", D, L, T, TS, "\"reason\":\"\""),
                        object("\"eventId\":\"" + "x".repeat(PgText.MAX_ID_BYTES) + "\"", D, L, T, TS))
                .map(v -> Arguments.of(v, true));
    }

    static Stream<Arguments> leftToJackson() {
        return Stream.of(
                        object(E, D, L, "\"type\":\"EXPLODED\"", TS), // UNKNOWN_TYPE
                        object(E, D, L, "\"type\":\"PIECE_PRODUCE\"", TS),
                        object(E, D, L, "\"type\":\"PIECE_PRODUCEDX\"", TS),
                        object(E, D, L, T, TS, "\"count\":2147483648"), // WRONG_TYPE
                        object(E, D, L, T, "\"ts\":1000000000000000000"), // 19 digits
                        object(E, D, L, T, "\"ts\":01764504000000"), // MALFORMED_JSON
                        object(E, D, L, T, TS, "\"count\":00"),
                        object(E, D, L, T, TS, "\"count\":-0"),
                        object(E, D, L, T, TS, "\"count\":-1"), // NEGATIVE_COUNT
                        object(E, D, L, T, "\"ts\":1764504000000.0"),
                        object(E, D, L, T, "\"ts\":17645e8"),
                        object(E, D, L, T, "\"ts\":\"2026-11-30T11:00:00Z\""),
                        object(E, D, L, T, TS, "\"lineId\":\"L2\""), // a repeated field
                        object(E, D, L, T, TS, "\"reason\":null"),
                        object("\"eventId\":\"e\\\"1\"", D, L, T, TS),
                        object("\"eventId\":\"é\"", D, L, T, TS),
                        object("\"eventId\":\"e\u007f\"", D, L, T, TS),
                        object("\"eventId\":\"e\t\"", D, L, T, TS),
                        object("\"eventId\":\"" + "x".repeat(PgText.MAX_ID_BYTES + 1) + "\"", D, L, T, TS),
                        object("\"event\\u0049d\":\"e\"", D, L, T, TS),
                        object(E, D, L, T, TS) + " x", // trailing content
                        object(E, D, L, T, TS) + "}",
                        object(E, D, L, T, TS).replace("}", ",}"),
                        object(E, D, L, T, TS).replace(":", "\f:"),
                        "\ufeff" + object(E, D, L, T, TS))
                .map(v -> Arguments.of(v, false));
    }

    static Stream<Arguments> records() {
        return Stream.concat(plain(), leftToJackson());
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("records")
    void aRecordParsesAsJacksonsPathParsesIt(String value, boolean plain) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        assertThat(PlainEventReader.read(bytes) != null).as("read plainly").isEqualTo(plain);
        String viaJackson = value.replaceFirst("\\{", "{\"unknown\":0,");
        assertThat(PlainEventReader.read(viaJackson.getBytes(StandardCharsets.UTF_8)))
                .isNull();
        assertThat(outcome(parse(value))).isEqualTo(outcome(parse(viaJackson)));
    }

    private static ParsedRecord parse(String value) {
        return JSON.parse(
                "d1".getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8), "t", 0, 1, NOW);
    }

    /** What must not depend on the path; Jackson's own messages may quote the bytes' positions. */
    private static Object outcome(ParsedRecord r) {
        if (r.isAccepted()) {
            return r.event;
        }
        return r.rejected.reason == RejectReason.MALFORMED_JSON
                ? r.rejected.reason
                : r.rejected.reason + ": " + r.rejected.detail;
    }
}
