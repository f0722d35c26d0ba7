package io.lineflow.rules.event;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The members of the event's JSON, the one list of them: each names the {@link DeviceEvent} field
 * that holds it and says what kind of value it is.
 *
 * <p>The readers are driven by it ({@link DeviceEventJson}'s Jackson path and {@link
 * PlainEventReader} look names up here and store through switches that name every constant, so
 * javac refuses a member one of them forgets), and so is the tests' hostile record generator; the
 * writers, {@link DeviceEventJson#toJson} and the job's shuffle serializer, are checked against it
 * by round-trip tests. The order is the one {@code toJson} writes, and the order in which missing
 * and invalid members are reported.
 */
public enum EventField {
    EVENT_ID("eventId", Kind.ID),
    DEVICE_ID("deviceId", Kind.ID),
    LINE_ID("lineId", Kind.ID),
    TYPE("type", Kind.TYPE),
    TS("ts", Kind.TIME),
    COUNT("count", Kind.COUNT),
    REASON("reason", Kind.TEXT);

    /** What a member's value is; the readers and the checks after reading go by it. */
    public enum Kind {
        /** Required text, a non-empty id PostgreSQL can store ({@link PgText#idProblem}). */
        ID(true, false),
        /** Optional text PostgreSQL can store ({@link PgText#problem}). */
        TEXT(false, false),
        /** Required, the name of an {@link EventType}. */
        TYPE(true, false),
        /** Required event time: an ISO-8601 instant, or epoch milliseconds as {@code toJson} writes it. */
        TIME(true, true),
        /** Optional non-negative int, 1 when absent. */
        COUNT(false, true);

        /** Whether a record without the member (or with null) is rejected as missing it. */
        public final boolean required;
        /** Whether {@code toJson} writes it as a JSON number, so that the plain form holds digits. */
        public final boolean writtenAsNumber;

        Kind(boolean required, boolean writtenAsNumber) {
            this.required = required;
            this.writtenAsNumber = writtenAsNumber;
        }

        /** Whether the value is text that must be storable in PostgreSQL. */
        boolean isText() {
            return this == ID || this == TEXT;
        }
    }

    /** Every member, in the table's order; one shared array, so a loop over it allocates nothing. */
    static final EventField[] ALL = values();

    /** The text members, in the table's order. */
    static final EventField[] TEXT =
            Arrays.stream(ALL).filter(f -> f.kind.isText()).toArray(EventField[]::new);

    /** The {@link #bit}s of the required members. */
    static final int REQUIRED =
            Arrays.stream(ALL).filter(f -> f.kind.required).mapToInt(f -> f.bit).reduce(0, (a, b) -> a | b);

    private static final Map<String, EventField> BY_NAME = new HashMap<>();

    static {
        for (EventField f : ALL) {
            BY_NAME.put(f.jsonName, f);
        }
    }

    /** The member's name in the JSON, which is also the name of its {@link DeviceEvent} field. */
    public final String jsonName;

    public final Kind kind;

    /** This member's bit in a set of members held as an int. */
    final int bit = 1 << ordinal();

    EventField(String jsonName, Kind kind) {
        this.jsonName = jsonName;
        this.kind = kind;
    }

    /** The member called {@code jsonName}, or null for a name the format does not know. */
    static EventField named(String jsonName) {
        return BY_NAME.get(jsonName);
    }
}
