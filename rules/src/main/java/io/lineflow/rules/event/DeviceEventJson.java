package io.lineflow.rules.event;

import static io.lineflow.rules.event.EventField.COUNT;
import static io.lineflow.rules.event.EventField.DEVICE_ID;
import static io.lineflow.rules.event.EventField.EVENT_ID;
import static io.lineflow.rules.event.EventField.LINE_ID;
import static io.lineflow.rules.event.EventField.REASON;
import static io.lineflow.rules.event.EventField.TS;
import static io.lineflow.rules.event.EventField.TYPE;

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
 * one pass over the bytes and no reflection per record). Jackson defines the format; a record in
 * the plain form {@link #toJson} writes, nearly every one, is read by {@link PlainEventReader}
 * instead, to the same fields without the cost of a parser.
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
        Fields f = PlainEventReader.read(value);
        if (f == null) { // not plain: Jackson reads it, or rejects it as malformed or mistyped
            f = new Fields();
            ParsedRecord rejected = readWithJackson(value, f, reject);
            if (rejected != null) {
                return rejected;
            }
        }
        DeviceEvent event = f.event;
        int absent = EventField.REQUIRED & ~f.present;
        if (absent != 0) { // the first in the table's order
            EventField missing = EventField.ALL[Integer.numberOfTrailingZeros(absent)];
            return reject.because(RejectReason.MISSING_FIELD, missing.jsonName + " is missing");
        }
        if (f.type == null) {
            return reject.because(RejectReason.UNKNOWN_TYPE, "type '" + f.unknownType + "' is unknown");
        }
        event.type = f.type;
        String invalid = null;
        for (EventField field : EventField.TEXT) {
            invalid = textProblem(field, f.text(field), f.plainText);
            if (invalid != null) {
                break;
            }
        }
        if (invalid != null) {
            return reject.because(RejectReason.INVALID_TEXT, invalid);
        }
        if (f.tsBeyondLong || event.ts < earliestMillis) {
            return reject.because(
                    RejectReason.TIMESTAMP_OUT_OF_RANGE,
                    "ts " + (f.tsBeyondLong ? "does not fit in epoch milliseconds" : Instant.ofEpochMilli(event.ts))
                            + "; events from " + Instant.ofEpochMilli(earliestMillis) + " are counted");
        }
        if (event.ts > nowMillis + maxFutureMillis) {
            return reject.because(
                    RejectReason.FUTURE_TIMESTAMP,
                    "ts " + Instant.ofEpochMilli(event.ts) + " is more than " + maxFutureMillis / 1000 + " s ahead of "
                            + Instant.ofEpochMilli(nowMillis));
        }
        // Keys are nearly always the ASCII id: only other keys are decoded (and quoted if they differ).
        if (!isAsciiOf(key, event.deviceId)) {
            String keyText = new String(key, StandardCharsets.UTF_8);
            if (!keyText.equals(event.deviceId)) {
                return reject.because(
                        RejectReason.KEY_MISMATCH,
                        "key '" + keyText + "' differs from deviceId '" + event.deviceId + "'");
            }
        }
        return ParsedRecord.accepted(event.at(topic, partition, offset));
    }

    /**
     * Reads the fields of a record that is not in the plain form into {@code f}; returns its
     * rejection if the JSON or a field's type is wrong, else null.
     */
    private static ParsedRecord readWithJackson(byte[] value, Fields f, Rejector reject) {
        try (JsonParser p = JSON.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return reject.because(RejectReason.MALFORMED_JSON, "not a JSON object");
            }
            // nextFieldName reads a name and the start of its value in one call; the name is
            // Jackson's canonical (interned) String, so the lookup's equals ends at the identity check.
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken t = p.nextToken();
                EventField field = EventField.named(name);
                if (field == null) {
                    p.skipChildren(); // unknown fields are allowed and ignored
                    continue;
                }
                ParsedRecord rejected = readValue(p, t, field, f, reject);
                if (rejected != null) {
                    return rejected;
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
        return null;
    }

    /**
     * Reads the value of member {@code field}, whose first token {@code t} is current, into {@code
     * f}; returns its rejection if the value is one no event may have, else null.
     *
     * @throws WrongType if the value is not of the member's JSON type
     */
    private static ParsedRecord readValue(JsonParser p, JsonToken t, EventField field, Fields f, Rejector reject)
            throws IOException {
        // A switch expression, so that javac refuses a member of the table this method forgets.
        return switch (field) {
            case EVENT_ID, DEVICE_ID, LINE_ID, REASON -> {
                f.text(field, text(p, t, field));
                yield null;
            }
            case TYPE -> {
                String name = text(p, t, field);
                f.type(eventType(name), name);
                yield null;
            }
            case COUNT -> {
                if (t == JsonToken.VALUE_NULL) {
                    yield null;
                }
                if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw new WrongType(field, "an integer up to " + Integer.MAX_VALUE);
                }
                long count = p.getLongValue();
                if (count < 0) {
                    yield reject.because(RejectReason.NEGATIVE_COUNT, "count is " + count);
                }
                if (count > Integer.MAX_VALUE) {
                    throw new WrongType(field, "an integer up to " + Integer.MAX_VALUE);
                }
                f.count((int) count);
                yield null;
            }
            case TS -> {
                if (t == JsonToken.VALUE_NUMBER_INT) {
                    f.tsBeyondLong = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER;
                    f.ts(f.tsBeyondLong ? 0 : p.getLongValue());
                } else if (t == JsonToken.VALUE_STRING) {
                    Instant at = parseInstant(p.getText());
                    f.tsBeyondLong = at.isBefore(MIN_MILLIS) || at.isAfter(MAX_MILLIS);
                    f.ts(f.tsBeyondLong ? 0 : at.toEpochMilli());
                } else if (t != JsonToken.VALUE_NULL) {
                    throw new WrongType(field, "an ISO-8601 instant or epoch milliseconds");
                }
                yield null;
            }
        };
    }

    /** Writes an event in the wire format, with {@code ts} as epoch milliseconds. */
    public static byte[] toJson(DeviceEvent e) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(160);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            // In the table's order; EventFieldTest checks that every member is written.
            g.writeStringField(EVENT_ID.jsonName, e.eventId);
            g.writeStringField(DEVICE_ID.jsonName, e.deviceId);
            g.writeStringField(LINE_ID.jsonName, e.lineId);
            g.writeStringField(TYPE.jsonName, e.type.name());
            g.writeNumberField(TS.jsonName, e.ts);
            g.writeNumberField(COUNT.jsonName, e.count);
            if (e.reason != null) {
                g.writeStringField(REASON.jsonName, e.reason);
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toByteArray();
    }

    /**
     * What is wrong with text member {@code field}'s {@code value}, or null. Text of the plain form
     * ({@code plain}) is printable ASCII of at most {@link PgText#MAX_ID_BYTES} bytes, which {@link
     * PgText} refuses only when it is an empty id: only that is checked.
     */
    private static String textProblem(EventField field, String value, boolean plain) {
        if (value == null || (plain && !value.isEmpty())) {
            return null;
        }
        String p = field.kind == EventField.Kind.ID ? PgText.idProblem(value) : PgText.problem(value);
        return p == null ? null : field.jsonName + " " + p;
    }

    private static String text(JsonParser p, JsonToken t, EventField field) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_STRING) {
            throw new WrongType(field, "a string");
        }
        return p.getText();
    }

    /** The type {@code name} names, or null if none (or no name). */
    private static EventType eventType(String name) {
        if (name == null) {
            return null;
        }
        try {
            return EventType.valueOf(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Whether {@code key} is the ASCII encoding of {@code text}. If so it is also its UTF-8, so the
     * key matches without being decoded; a byte of 0x80 or more never equals a char here.
     */
    private static boolean isAsciiOf(byte[] key, String text) {
        if (key.length != text.length()) {
            return false;
        }
        for (int i = 0; i < key.length; i++) {
            if (key[i] != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static Instant parseInstant(String text) throws WrongType {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new WrongType(TS, "an ISO-8601 instant such as 2026-11-01T10:30:36.123Z");
        }
    }

    /**
     * A record's fields as read, before the checks that need all of them. Both readers store
     * through its methods, which keep {@link #present} in step with the values.
     */
    static final class Fields {
        final DeviceEvent event = new DeviceEvent();
        EventType type;
        /** The text of a type that names none of EventType's, kept for the rejection's detail. */
        String unknownType;

        /** The {@link EventField#bit}s of the members that hold a value (a null member holds none). */
        int present;
        /** Read by {@link PlainEventReader}: every text is printable ASCII, none longer than an id may be. */
        boolean plainText;
        /** An event time epoch milliseconds cannot hold (e.g. the year 300000000). */
        boolean tsBeyondLong;

        Fields() {
            event.count = 1;
        }

        /** Stores text member {@code field}'s value; null, as a later null member, clears it. */
        void text(EventField field, String value) {
            String stored = switch (field) {
                case EVENT_ID -> event.eventId = value;
                case DEVICE_ID -> event.deviceId = value;
                case LINE_ID -> event.lineId = value;
                case REASON -> event.reason = value;
                case TYPE, TS, COUNT -> throw notText(field);
            };
            present = stored == null ? present & ~field.bit : present | field.bit;
        }

        /** Text member {@code field}'s value. */
        String text(EventField field) {
            return switch (field) {
                case EVENT_ID -> event.eventId;
                case DEVICE_ID -> event.deviceId;
                case LINE_ID -> event.lineId;
                case REASON -> event.reason;
                case TYPE, TS, COUNT -> throw notText(field);
            };
        }

        /**
         * Stores the type {@code named}, or when it is null the {@code name} that names no type;
         * both null (a null member) clears it.
         */
        void type(EventType named, String name) {
            type = named;
            unknownType = named == null ? name : null;
            present = named == null && name == null ? present & ~TYPE.bit : present | TYPE.bit;
        }

        void ts(long millis) {
            event.ts = millis;
            present |= TS.bit;
        }

        void count(int count) {
            event.count = count;
            present |= COUNT.bit;
        }

        private static IllegalArgumentException notText(EventField field) {
            return new IllegalArgumentException(field.jsonName + " is not a text member");
        }
    }

    /** A field of the wrong JSON type; the message names the field and what it must be. */
    private static final class WrongType extends IOException {
        WrongType(EventField field, String expected) {
            super(field.jsonName + " must be " + expected);
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
