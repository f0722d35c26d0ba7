package io.lineflow.rules.event;

/** Why an input record was not counted. Stored as text in {@code rejected_events.reason}. */
public enum RejectReason {
    /** Not parseable as a JSON object. */
    MALFORMED_JSON,
    /** A required field is absent or null. */
    MISSING_FIELD,
    /** A field has the wrong JSON type or an unparseable value. */
    WRONG_TYPE,
    /** {@code type} is not one of the known event types. */
    UNKNOWN_TYPE,
    /** {@code count} is negative. */
    NEGATIVE_COUNT,
    /** The event time lies further in the future than the configured tolerance. */
    FUTURE_TIMESTAMP,
    /** The event time lies before the configured earliest time, or beyond epoch milliseconds. */
    TIMESTAMP_OUT_OF_RANGE,
    /**
     * A text field holds what PostgreSQL cannot store (U+0000, an unpaired surrogate), or an id is
     * empty or longer than {@link PgText#MAX_ID_BYTES}.
     */
    INVALID_TEXT,
    /** The record value is larger than the configured maximum. */
    OVERSIZED,
    /** The Kafka record has no key. */
    NULL_KEY,
    /** The Kafka key differs from the event's {@code deviceId}. */
    KEY_MISMATCH,
    /** An event with the same {@code eventId} was already counted in the device's window. */
    DUPLICATE,
    /** The event arrived after its window closed and its allowed lateness passed. */
    LATE,
    /**
     * Not an input record: an output row PostgreSQL refused for its content (a data error), kept
     * instead of failing the job. See {@code PostgresSink}.
     */
    REFUSED_BY_DATABASE
}
