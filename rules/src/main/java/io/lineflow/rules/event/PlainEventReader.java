package io.lineflow.rules.event;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a record in the plain form nearly every record has, {@link DeviceEventJson#toJson}'s,
 * without a JSON parser; anything else is left to Jackson.
 *
 * <p>Plain means: one object whose members are the {@link EventField}s, each at most once, those
 * {@code toJson} writes as numbers ({@code ts}, {@code count}) non-negative integers of at most 18
 * digits without leading zeros, the others strings of printable ASCII without escapes (at most
 * {@link PgText#MAX_ID_BYTES} chars), and JSON whitespace between tokens. Such bytes are valid
 * UTF-8 JSON that Jackson reads to exactly these values without error, so the result is the one
 * Jackson's path would give. Everything else (escapes, other bytes, null, other types or fields,
 * a repeated field, a negative or longer number, a count beyond an int, an unknown type) returns
 * null, and Jackson's path decides.
 */
final class PlainEventReader {
    private PlainEventReader() {}

    /** The members' names, indexed by {@link EventField#ordinal()}. */
    private static final byte[][] FIELDS =
            ascii(Arrays.stream(EventField.ALL).map(f -> f.jsonName).toArray(String[]::new));

    /**
     * For each ASCII byte, the one field whose name starts with it, -1 for none, or {@link
     * #SHARED_FIRST_BYTE} when several do ({@code type}, {@code ts}): most names are then matched
     * with one comparison instead of one per field.
     */
    private static final int[] BY_FIRST_BYTE = new int[128];

    private static final int SHARED_FIRST_BYTE = -2;

    static {
        Arrays.fill(BY_FIRST_BYTE, -1);
        for (int k = 0; k < FIELDS.length; k++) {
            int first = FIELDS[k][0];
            BY_FIRST_BYTE[first] = BY_FIRST_BYTE[first] == -1 ? k : SHARED_FIRST_BYTE;
        }
    }

    private static final EventType[] TYPES = EventType.values();
    private static final byte[][] TYPE_NAMES =
            ascii(Arrays.stream(TYPES).map(Enum::name).toArray(String[]::new));

    /** A Long has 19 digits; 18 always fit, so the value is never Jackson's BigInteger. */
    private static final int MAX_DIGITS = 18;

    /** The record's fields, or null if it is not in the plain form. */
    static DeviceEventJson.Fields read(byte[] v) {
        int i = skipSpace(v, 0);
        if (i == v.length || v[i] != '{') {
            return null;
        }
        DeviceEventJson.Fields f = new DeviceEventJson.Fields();
        int seen = 0;
        do {
            i = skipSpace(v, i + 1);
            int field = field(v, i);
            if (field < 0 || (seen & 1 << field) != 0) {
                return null;
            }
            seen |= 1 << field;
            i = skipSpace(v, i + FIELDS[field].length + 2);
            if (i == v.length || v[i] != ':') {
                return null;
            }
            i = skipSpace(v, i + 1);
            EventField member = EventField.ALL[field];
            int end = member.kind.writtenAsNumber ? digitsEnd(v, i) : stringEnd(v, i);
            if (end < 0 || !set(f, member, v, i, end)) {
                return null;
            }
            i = skipSpace(v, end);
        } while (i < v.length && v[i] == ',');
        if (i == v.length || v[i] != '}' || skipSpace(v, i + 1) != v.length) {
            return null;
        }
        f.plainText = true;
        return f;
    }

    /**
     * Stores one value, a string or digits as the member's kind says; false if it is one the plain
     * form leaves to Jackson. A switch expression, so that javac refuses a member it forgets.
     */
    private static boolean set(DeviceEventJson.Fields f, EventField field, byte[] v, int from, int end) {
        return switch (field) {
            case EVENT_ID, DEVICE_ID, LINE_ID, REASON -> {
                f.text(field, text(v, from, end));
                yield true;
            }
            case TYPE -> {
                EventType type = type(v, from + 1, end - 1);
                if (type == null) {
                    yield false; // Jackson's path keeps the unknown name for the rejection's detail
                }
                f.type(type, null);
                yield true;
            }
            case TS -> {
                f.ts(number(v, from, end));
                yield true;
            }
            case COUNT -> {
                long count = number(v, from, end);
                if (count > Integer.MAX_VALUE) {
                    yield false;
                }
                f.count((int) count);
                yield true;
            }
        };
    }

    /** The index in FIELDS of the quoted name at {@code i}, or -1. */
    private static int field(byte[] v, int i) {
        if (i + 1 >= v.length || v[i] != '"' || v[i + 1] < 0) {
            return -1;
        }
        int only = BY_FIRST_BYTE[v[i + 1]];
        if (only != SHARED_FIRST_BYTE) {
            return only >= 0 && isName(v, i, only) ? only : -1;
        }
        for (int k = 0; k < FIELDS.length; k++) {
            if (isName(v, i, k)) {
                return k;
            }
        }
        return -1;
    }

    /** Whether the quoted name at {@code i} is {@code FIELDS[k]}. */
    private static boolean isName(byte[] v, int i, int k) {
        int end = i + 1 + FIELDS[k].length;
        return end < v.length && v[end] == '"' && startsWith(v, i + 1, FIELDS[k]);
    }

    /**
     * Whether {@code v} holds {@code ascii} at {@code from}; the caller has checked that it fits. A
     * plain loop: for names of a few bytes, {@code Arrays.equals} over ranges (its range checks and
     * the call into the vectorized mismatch) was a tenth of the source thread in the profile.
     */
    private static boolean startsWith(byte[] v, int from, byte[] ascii) {
        for (int j = 0; j < ascii.length; j++) {
            if (v[from + j] != ascii[j]) {
                return false;
            }
        }
        return true;
    }

    /** The index after the plain string starting at {@code i}, or -1. */
    private static int stringEnd(byte[] v, int i) {
        if (i == v.length || v[i] != '"') {
            return -1;
        }
        int j = i + 1;
        // Bytes of 0x80 and more are negative, so below ' ' too.
        while (j < v.length && v[j] != '"') {
            if (v[j] < ' ' || v[j] > '~' || v[j] == '\\') {
                return -1;
            }
            j++;
        }
        return j == v.length || j - i - 1 > PgText.MAX_ID_BYTES ? -1 : j + 1;
    }

    /** The index after the plain number starting at {@code i}, or -1. */
    private static int digitsEnd(byte[] v, int i) {
        int j = i;
        while (j < v.length && v[j] >= '0' && v[j] <= '9') {
            j++;
        }
        int digits = j - i;
        return digits == 0 || digits > MAX_DIGITS || (digits > 1 && v[i] == '0') ? -1 : j;
    }

    private static String text(byte[] v, int from, int end) {
        return new String(v, from + 1, end - from - 2, StandardCharsets.US_ASCII);
    }

    private static EventType type(byte[] v, int from, int to) {
        for (int k = 0; k < TYPES.length; k++) {
            if (to - from == TYPE_NAMES[k].length && startsWith(v, from, TYPE_NAMES[k])) {
                return TYPES[k];
            }
        }
        return null;
    }

    private static long number(byte[] v, int from, int end) {
        long n = 0;
        for (int j = from; j < end; j++) {
            n = n * 10 + (v[j] - '0');
        }
        return n;
    }

    /** The index of the first byte from {@code i} on that is not JSON whitespace. */
    private static int skipSpace(byte[] v, int i) {
        while (i < v.length && (v[i] == ' ' || v[i] == '\n' || v[i] == '\r' || v[i] == '\t')) {
            i++;
        }
        return i;
    }

    private static byte[][] ascii(String... names) {
        return Arrays.stream(names)
                .map(n -> n.getBytes(StandardCharsets.US_ASCII))
                .toArray(byte[][]::new);
    }
}
