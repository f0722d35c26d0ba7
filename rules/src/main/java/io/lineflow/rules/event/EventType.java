package io.lineflow.rules.event;

/**
 * What a device reports: a produced piece, or the start or end of a stop. {@link
 * DeviceEventSerializer} writes the ordinal: add new types at the end.
 */
public enum EventType {
    PIECE_PRODUCED,
    DOWNTIME_START,
    DOWNTIME_END
}
