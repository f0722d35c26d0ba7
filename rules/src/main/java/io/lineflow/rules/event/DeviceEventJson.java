package io.lineflow.rules.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Reads and writes the device event JSON format with Jackson's streaming API (no data binding, so
 * one pass over the bytes and no reflection per record).
 *
 * <p>{@link #parse} never throws: every way a record can be wrong ends as a {@link RejectedEvent}
 * with its reason and the raw bytes. An accepted event is one every later step can take: its ids
 * are non-empty text PostgreSQL can store ({@link PgText}), and its time lies between {@code
 * earliest} and the wall clock plus {@code maxFuture}, so window bounds, the downtime transition
 * encoding ({@code ts << 1}) and {@code timestamptz} all hold it.
 */
public final class DeviceEventJson implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final JsonFactory JSON = new JsonFactory();
    private static final Instant MIN_MILLIS = Instant.ofEpochMilli(Long.MIN_VALUE);
    private static final Instant MAX_MILLIS = Instant.ofEpochMilli(Long.MAX_VALUE);

    private final int maxBytes;
    private final long earliestMillis;
    private final long maxFutureMillis;

    /**
     * @param maxBytes records with a larger value are rejected as {@link RejectReason#OVERSIZED}
     * @param earliestMillis events before this time are rejected as {@link
     *     RejectReason#TIMESTAMP_OUT_OF_RANGE}
     * @param maxFutureMillis events more than this far ahead of the wall clock are rejected as
     *     {@link RejectReason#FUTURE_TIMESTAMP}
     */
    public DeviceEventJson(int maxBytes, long earliestMillis, long maxFutureMillis) {
        this.maxBytes = maxBytes;
        this.earliestMillis = earliestMillis;
        this.maxFutureMillis = maxFutureMillis;
    }

    /** Parses one Kafka record; {@code nowMillis} is the wall clock used for the future check. */
    public ParsedRecord parse(byte[] key, byte[] value, String topic, int partition, long offset, long nowMillis) {
        Rejector reject = new Rejector(value, topic, partition, offset);
        if (value == null) {
            return reject.because(RejectReason.MALFORMED_JSON, "record value is null (tombstone)");
        }
        if (value.length > maxBytes) {
            return reject.because(
                    RejectReason.OVERSIZED, "value is " + value.length + " bytes, the maximum is " + maxBytes);
        }
        if (key == null) {
            return reject.because(RejectReason.NULL_KEY, "record key is null; expected the device id");
        }
        DeviceEvent event = new DeviceEvent();
        event.count = 1;
        String type = null;
        boolean hasTs = false;
        // An event time epoch milliseconds cannot hold (e.g. the year 300000000).
        boolean tsBeyondLong = false;
        try (JsonParser p = JSON.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return reject.because(RejectReason.MALFORMED_JSON, "not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.getCurrentName();
                JsonToken t = p.nextToken();
                switch (field) {
                    case "eventId":
                        event.eventId = text(p, t, field);
                        break;
                    case "deviceId":
                        event.deviceId = text(p, t, field);
                        break;
                    case "lineId":
                        event.lineId = text(p, t, field);
                        break;
                    case "type":
                        type = text(p, t, field);
                        break;
                    case "reason":
                        event.reason = text(p, t, field);
                        break;
                    case "count":
                        if (t != JsonToken.VALUE_NULL) {
                            if (t != JsonToken.VALUE_NUMBER_INT
                                    || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                                throw new WrongType(field, "an integer up to " + Integer.MAX_VALUE);
                            }
                            long count = p.getLongValue();
                            if (count < 0) {
                                return reject.because(RejectReason.NEGATIVE_COUNT, "count is " + count);
                            }
                            if (count > Integer.MAX_VALUE) {
                                throw new WrongType(field, "an integer up to " + Integer.MAX_VALUE);
                            }
                            event.count = (int) count;
                        }
                        break;
                    case "ts":
                        if (t == JsonToken.VALUE_NUMBER_INT) {
                            tsBeyondLong = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER;
                            event.ts = tsBeyondLong ? 0 : p.getLongValue();
                            hasTs = true;
                        } else if (t == JsonToken.VALUE_STRING) {
                            Instant at = parseInstant(p.getText());
                            tsBeyondLong = at.isBefore(MIN_MILLIS) || at.isAfter(MAX_MILLIS);
                            event.ts = tsBeyondLong ? 0 : at.toEpochMilli();
                            hasTs = true;
                        } else if (t != JsonToken.VALUE_NULL) {
                            throw new WrongType(field, "an ISO-8601 instant or epoch milliseconds");
                        }
                        break;
                    default:
                        p.skipChildren(); // unknown fields are allowed and ignored
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                return reject.because(RejectReason.MALFORMED_JSON, "trailing content after the object");
            }
        } catch (WrongType e) {
            return reject.because(RejectReason.WRONG_TYPE, e.getMessage());
        } catch (JsonProcessingException e) {
            return reject.because(RejectReason.MALFORMED_JSON, e.getOriginalMessage());
        } catch (IOException e) {
            return reject.because(RejectReason.MALFORMED_JSON, e.getMessage());
        }

        String missing = event.eventId == null
                ? "eventId"
                : event.deviceId == null
                        ? "deviceId"
                        : event.lineId == null ? "lineId" : type == null ? "type" : !hasTs ? "ts" : null;
        if (missing != null) {
            return reject.because(RejectReason.MISSING_FIELD, missing + " is missing");
        }
        try {
            event.type = EventType.valueOf(type);
        } catch (IllegalArgumentException e) {
            return reject.because(RejectReason.UNKNOWN_TYPE, "type '" + type + "' is unknown");
        }
        String invalid = textProblem(
                "eventId",
                event.eventId,
                true,
                textProblem(
                        "deviceId",
                        event.deviceId,
                        true,
                        textProblem("lineId", event.lineId, true, textProblem("reason", event.reason, false, null))));
        if (invalid != null) {
            return reject.because(RejectReason.INVALID_TEXT, invalid);
        }
        if (tsBeyondLong || event.ts < earliestMillis) {
            return reject.because(
                    RejectReason.TIMESTAMP_OUT_OF_RANGE,
                    "ts " + (tsBeyondLong ? "does not fit in epoch milliseconds" : Instant.ofEpochMilli(event.ts))
                            + "; events from " + Instant.ofEpochMilli(earliestMillis) + " are counted");
        }
        if (event.ts > nowMillis + maxFutureMillis) {
            return reject.because(
                    RejectReason.FUTURE_TIMESTAMP,
                    "ts " + Instant.ofEpochMilli(event.ts) + " is more than " + maxFutureMillis / 1000 + " s ahead of "
                            + Instant.ofEpochMilli(nowMillis));
        }
        String keyText = new String(key, StandardCharsets.UTF_8);
        if (!keyText.equals(event.deviceId)) {
            return reject.because(
                    RejectReason.KEY_MISMATCH, "key '" + keyText + "' differs from deviceId '" + event.deviceId + "'");
        }
        return ParsedRecord.accepted(event.at(topic, partition, offset));
    }

    /** Writes an event in the wire format, with {@code ts} as epoch milliseconds. */
    public static byte[] toJson(DeviceEvent e) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(160);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("eventId", e.eventId);
            g.writeStringField("deviceId", e.deviceId);
            g.writeStringField("lineId", e.lineId);
            g.writeStringField("type", e.type.name());
            g.writeNumberField("ts", e.ts);
            g.writeNumberField("count", e.count);
            if (e.reason != null) {
                g.writeStringField("reason", e.reason);
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toByteArray();
    }

    /** The first problem of the fields checked so far: {@code earlier}, else this field's. */
    private static String textProblem(String field, String value, boolean id, String earlier) {
        if (earlier != null || value == null) {
            return earlier;
        }
        String p = id ? PgText.idProblem(value) : PgText.problem(value);
        return p == null ? null : field + " " + p;
    }

    private static String text(JsonParser p, JsonToken t, String field) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw new WrongType(field, "a string");
        }
        return p.getText();
    }

    private static Instant parseInstant(String text) throws WrongType {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new WrongType("ts", "an ISO-8601 instant such as 2026-11-01T10:30:36.123Z");
        }
    }

    /** A field of the wrong JSON type; the message names the field and what it must be. */
    private static final class WrongType extends IOException {
        WrongType(String field, String expected) {
            super(field + " must be " + expected);
        }
    }

    /** Builds rejections for one record. */
    private static final class Rejector {
        private final byte[] raw;
        private final String topic;
        private final int partition;
        private final long offset;

        Rejector(byte[] raw, String topic, int partition, long offset) {
            this.raw = raw;
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
        }

        ParsedRecord because(RejectReason reason, String detail) {
            return ParsedRecord.rejected(new RejectedEvent(topic, partition, offset, raw, reason, detail));
        }
    }
}
