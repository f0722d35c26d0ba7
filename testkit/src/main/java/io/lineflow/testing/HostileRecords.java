package io.lineflow.testing;

import io.lineflow.rules.event.EventField;
import io.lineflow.rules.event.EventType;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Kafka records as a hostile producer could write them: valid events, events with one or more
 * fields replaced by extreme numbers and dates, odd Unicode (NUL, unpaired surrogates, emoji,
 * noncharacters), wrong types, deep nesting, huge fields, byte-level damage (flips, truncation,
 * invalid UTF-8) and damaged keys. A pure function of a {@link Random}: the parser's property
 * test draws from it with a printed seed, the pipeline's with a fixed one.
 */
public final class HostileRecords {
    private HostileRecords() {}

    /** One generated record; {@code kind} says how it was made, for statistics and reports. */
    public static final class Record {
        public final byte[] key;
        public final byte[] value;
        public final String kind;

        Record(byte[] key, byte[] value, String kind) {
            this.key = key;
            this.value = value;
            this.kind = kind;
        }

        @Override
        public String toString() {
            return kind + " key=" + Arrays.toString(key) + " value=" + shown(value);
        }

        private static String shown(byte[] v) {
            if (v == null) {
                return "null";
            }
            String s = new String(v, StandardCharsets.UTF_8);
            return s.length() > 400 ? s.substring(0, 400) + "…(" + v.length + " bytes)" : s;
        }
    }

    private static final EventField[] FIELDS = EventField.values();

    /**
     * One record. Valid event times lie within the 30 days before {@code nowMillis}; the boundary
     * values tried are {@code earliestMillis} and {@code nowMillis + maxFutureMillis}, each ± 1 ms.
     *
     * @param devicePrefix prefix of the device ids of valid events (keeps them apart from others)
     */
    public static Record next(
            Random r, long nowMillis, long earliestMillis, long maxFutureMillis, int maxBytes, String devicePrefix) {
        Gen g = new Gen(r, nowMillis, earliestMillis, maxFutureMillis, maxBytes, devicePrefix);
        return g.record();
    }

    /** The generator's state for one record. */
    private static final class Gen {
        final Random r;
        final long now;
        final long earliest;
        final long maxFuture;
        final int maxBytes;
        final String prefix;

        Gen(Random r, long now, long earliest, long maxFuture, int maxBytes, String prefix) {
            this.r = r;
            this.now = now;
            this.earliest = earliest;
            this.maxFuture = maxFuture;
            this.maxBytes = maxBytes;
            this.prefix = prefix;
        }

        Record record() {
            Map<String, String> fields = validFields();
            String device = deviceOf(fields);
            int pick = r.nextInt(100);
            if (pick < 20) {
                return make(device, fields, "valid");
            }
            if (pick < 55) {
                int n = 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    mutateField(fields);
                }
                if (r.nextBoolean()) {
                    device = deviceOf(fields); // the key follows a hostile deviceId half the time
                }
                return make(device, fields, "fields");
            }
            if (pick < 72) {
                if (r.nextBoolean()) {
                    mutateField(fields);
                }
                Record base = make(device, fields, "bytes");
                return new Record(base.key, mutateBytes(base.value), "bytes");
            }
            if (pick < 82) {
                Record base = make(device, fields, "key");
                return new Record(hostileKey(device), base.value, "key");
            }
            if (pick < 89) {
                return huge(fields, device);
            }
            if (pick < 94) {
                fields.put(r.nextBoolean() ? "extra" : pickField().jsonName, nested(500 + r.nextInt(3000)));
                return make(device, fields, "nesting");
            }
            return garbage(device);
        }

        Record make(String device, Map<String, String> fields, String kind) {
            StringBuilder b = new StringBuilder("{");
            fields.forEach((k, v) -> {
                if (b.length() > 1) {
                    b.append(',');
                }
                b.append(quote(k)).append(':').append(v);
            });
            b.append('}');
            return new Record(device == null ? null : device.getBytes(StandardCharsets.UTF_8), utf8(b), kind);
        }

        Map<String, String> validFields() {
            Map<String, String> f = new LinkedHashMap<>();
            // Drawn before the members, so that a seed gives the records it always gave (the
            // pipeline's test uses a fixed one).
            String device = prefix + (r.nextInt(10) == 0 ? oddButStorable() : String.valueOf(r.nextInt(40)));
            long ts = now - (long) (r.nextDouble() * 30 * 86_400_000L);
            for (EventField field : FIELDS) {
                // A switch expression, so that a member added to the table cannot be left out here.
                String value = switch (field) {
                    case EVENT_ID -> quote("e-" + Long.toHexString(r.nextLong()));
                    case DEVICE_ID -> quote(device);
                    case LINE_ID -> quote("L" + (1 + r.nextInt(5)));
                    case TYPE -> quote(EventType.values()[r.nextInt(EventType.values().length)].name());
                    case TS ->
                        r.nextBoolean()
                                ? String.valueOf(ts)
                                : quote(Instant.ofEpochMilli(ts).toString());
                    case COUNT -> r.nextBoolean() ? String.valueOf(r.nextInt(10)) : null; // null: left out
                    case REASON -> r.nextInt(4) == 0 ? quote(r.nextBoolean() ? "jam" : oddButStorable()) : null;
                };
                if (value != null) {
                    f.put(field.jsonName, value);
                }
            }
            return shuffled(f);
        }

        /** Unusual text PostgreSQL stores fine: emoji (surrogate pairs), CJK, RTL, noncharacters. */
        String oddButStorable() {
            String[] odd = {"\uD83D\uDE00", "機械", "\u202Eevil", "e\u0301", "\uFFFE", "\uFFFF", " ", "\t", "\uD800\uDC00"
            };
            return odd[r.nextInt(odd.length)] + r.nextInt(40);
        }

        Map<String, String> shuffled(Map<String, String> f) {
            if (r.nextInt(4) != 0) {
                return f;
            }
            List<String> keys = new java.util.ArrayList<>(f.keySet());
            java.util.Collections.shuffle(keys, r);
            Map<String, String> out = new LinkedHashMap<>();
            keys.forEach(k -> out.put(k, f.get(k)));
            return out;
        }

        String deviceOf(Map<String, String> fields) {
            String v = fields.get("deviceId");
            if (v == null || !v.startsWith("\"")) {
                return prefix + "0";
            }
            return unquote(v);
        }

        EventField pickField() {
            return FIELDS[r.nextInt(FIELDS.length)];
        }

        void mutateField(Map<String, String> fields) {
            EventField field = pickField();
            String name = field.jsonName;
            int how = r.nextInt(10);
            if (how == 0) {
                fields.remove(name);
            } else if (how == 1) {
                fields.put("x" + r.nextInt(5), hostileValue(field)); // unknown fields are skipped
            } else if (field.kind == EventField.Kind.TIME) {
                fields.put(name, r.nextInt(4) == 0 ? hostileValue(field) : hostileTime());
            } else if (field.kind == EventField.Kind.COUNT) {
                fields.put(name, r.nextInt(3) == 0 ? hostileValue(field) : hostileNumber());
            } else {
                fields.put(name, r.nextInt(3) == 0 ? hostileValue(field) : quote(hostileText(field)));
            }
        }

        String hostileValue(EventField field) {
            switch (r.nextInt(6)) {
                case 0:
                    return hostileNumber();
                case 1:
                    return hostileTime();
                case 2:
                    return quote(hostileText(field));
                case 3:
                    String[] lit = {
                        "null", "true", "false", "{}", "[]", "{\"a\":[1,{\"b\":null}]}", "\"\"", "[\"ts\",1]"
                    };
                    return lit[r.nextInt(lit.length)];
                case 4:
                    return nested(1 + r.nextInt(40));
                default:
                    // Not JSON: the parser must reject the whole record.
                    String[] bad = {
                        "NaN",
                        "Infinity",
                        "-Infinity",
                        "0x10",
                        "01",
                        "'x'",
                        "tru",
                        "1.",
                        ".5",
                        "+1",
                        "\"unterminated",
                        "1e",
                        "--1",
                        "undefined"
                    };
                    return bad[r.nextInt(bad.length)];
            }
        }

        String hostileNumber() {
            BigInteger two63 = BigInteger.ONE.shiftLeft(63);
            Object[] n = {
                Long.MIN_VALUE,
                Long.MAX_VALUE,
                Long.MIN_VALUE + 1,
                Long.MAX_VALUE - 1,
                1L << 62,
                -(1L << 62),
                (1L << 62) - 1,
                0,
                -1,
                1,
                Integer.MAX_VALUE,
                (long) Integer.MAX_VALUE + 1,
                Integer.MIN_VALUE,
                two63,
                two63.negate().subtract(BigInteger.ONE),
                BigInteger.TEN.pow(30),
                BigInteger.TEN.pow(30).negate(),
                "1.5",
                "-0",
                "-0.0",
                "1e3",
                "1E400",
                "-1e-400",
                "2.5e12",
                earliest - 1,
                earliest,
                now + maxFuture,
                now + maxFuture + 1,
                -300_000_000_000_000L,
                300_000_000_000_000L,
                Long.MAX_VALUE / 2 + 1,
                Long.MIN_VALUE / 2 - 1,
                "1" + "0".repeat(999),
                "9".repeat(1001),
                r.nextLong()
            };
            return String.valueOf(n[r.nextInt(n.length)]);
        }

        String hostileTime() {
            long[] years = {
                -1_000_000_000L,
                -999_999_999,
                -300_000_000,
                -292_275_056,
                -10_000,
                -1,
                0,
                1,
                1969,
                1970,
                1999,
                2000,
                2026,
                9999,
                10_000,
                294_276,
                294_277,
                292_278_994,
                292_278_995,
                300_000_000,
                999_999_999,
                1_000_000_000L
            };
            int pick = r.nextInt(10);
            if (pick < 2) {
                return hostileNumber();
            }
            if (pick < 4) {
                String[] odd = {
                    "2026-02-30T00:00:00Z",
                    "2026-11-01T10:00:00",
                    "2026-11-01T23:59:60Z",
                    "2026-11-01",
                    "2026-11-01T10:00:00.123456789Z",
                    "2026-11-01T10:00:00+14:00",
                    "2026-11-01T10:00:00-18:00",
                    "2026-11-01T10:00:00.Z",
                    "",
                    " 2026-11-01T10:00:00Z",
                    "2026-11-01t10:00:00z",
                    "\u0000",
                    "2026-11-01T10:00:00Z\u0000",
                    Instant.ofEpochMilli(now + maxFuture).toString(),
                    Instant.ofEpochMilli(now + maxFuture + 1).toString(),
                    Instant.ofEpochMilli(earliest - 1).toString(),
                    Instant.ofEpochMilli(earliest).toString(),
                    Instant.MIN.toString(),
                    Instant.MAX.toString()
                };
                return quote(odd[r.nextInt(odd.length)]);
            }
            long year = years[r.nextInt(years.length)];
            String y =
                    year > 9999 ? "+" + year : year < 0 ? String.format("-%04d", -year) : String.format("%04d", year);
            return quote(String.format(
                    "%s-%02d-%02dT%02d:%02d:%02d%sZ",
                    y,
                    1 + r.nextInt(12),
                    1 + r.nextInt(28),
                    r.nextInt(24),
                    r.nextInt(60),
                    r.nextInt(60),
                    r.nextBoolean() ? "" : "." + r.nextInt(1000)));
        }

        String hostileText(EventField field) {
            int pick = r.nextInt(12);
            switch (pick) {
                case 0:
                    return "";
                case 1:
                    return "a\u0000b";
                case 2:
                    return "\u0000";
                case 3:
                    return "\uD800"; // unpaired high surrogate
                case 4:
                    return "x\uDC00y"; // unpaired low surrogate
                case 5:
                    return "\uDC00\uD800"; // the pair the wrong way round
                case 6:
                    return "x".repeat(1000 + r.nextInt(2000)); // near the id limit
                case 7:
                    return oddButStorable();
                case 8:
                    return field.kind == EventField.Kind.TYPE ? "piece_produced" : "  ";
                default:
                    char[] cs = new char[1 + r.nextInt(12)];
                    for (int i = 0; i < cs.length; i++) {
                        cs[i] = (char) r.nextInt(r.nextBoolean() ? 0x80 : 0x10000);
                    }
                    return new String(cs);
            }
        }

        String nested(int depth) {
            String open = r.nextBoolean() ? "[" : "{\"a\":";
            String close = open.equals("[") ? "]" : "}";
            return open.repeat(depth) + "1" + close.repeat(r.nextInt(8) == 0 ? depth - 1 : depth);
        }

        Record huge(Map<String, String> fields, String device) {
            int pick = r.nextInt(3);
            if (pick == 0) {
                fields.put("pad", quote("p".repeat(maxBytes - 200 + r.nextInt(400)))); // around the limit
            } else if (pick == 1) {
                String big = "d".repeat(2000 + r.nextInt(4000));
                fields.put("deviceId", quote(big));
                return make(big, fields, "huge");
            } else {
                fields.put("lineId", quote("L".repeat(2000 + r.nextInt(4000))));
            }
            return make(device, fields, "huge");
        }

        Record garbage(String device) {
            int pick = r.nextInt(6);
            byte[] key = device.getBytes(StandardCharsets.UTF_8);
            switch (pick) {
                case 0:
                    return new Record(key, null, "garbage"); // tombstone
                case 1:
                    return new Record(key, new byte[0], "garbage");
                case 2:
                    String[] json = {"null", "[]", "1", "\"x\"", "{}", "{\"ts\":1}{}", "{}}", "[{}]", "\uFEFF{}"};
                    return new Record(key, json[r.nextInt(json.length)].getBytes(StandardCharsets.UTF_8), "garbage");
                default:
                    byte[] b = new byte[r.nextInt(300)];
                    r.nextBytes(b);
                    if (b.length > 0 && r.nextBoolean()) {
                        b[0] = '{';
                    }
                    return new Record(key, b, "garbage");
            }
        }

        byte[] mutateBytes(byte[] v) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] cur = v;
            int ops = 1 + r.nextInt(4);
            for (int i = 0; i < ops && cur.length > 0; i++) {
                int at = r.nextInt(cur.length);
                out.reset();
                switch (r.nextInt(6)) {
                    case 0:
                        cur = cur.clone();
                        cur[at] ^= (byte) (1 << r.nextInt(8));
                        break;
                    case 1:
                        byte[][] insert = {
                            {0},
                            {(byte) 0xFF},
                            {(byte) 0xC0, (byte) 0x80},
                            {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                            {(byte) 0x80},
                            {'"'},
                            {'\\'},
                            {'{'},
                            {'}'},
                            {'\\', 'u', '0', '0', '0', '0'},
                            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}
                        };
                        byte[] ins = insert[r.nextInt(insert.length)];
                        out.write(cur, 0, at);
                        out.write(ins, 0, ins.length);
                        out.write(cur, at, cur.length - at);
                        cur = out.toByteArray();
                        break;
                    case 2:
                        cur = Arrays.copyOf(cur, at); // truncated
                        break;
                    case 3:
                        int len = Math.min(cur.length - at, 1 + r.nextInt(20));
                        out.write(cur, 0, at);
                        out.write(cur, at + len, cur.length - at - len); // a piece deleted
                        cur = out.toByteArray();
                        break;
                    case 4:
                        int dl = Math.min(cur.length - at, 1 + r.nextInt(20));
                        out.write(cur, 0, at + dl);
                        out.write(cur, at, cur.length - at); // a piece repeated
                        cur = out.toByteArray();
                        break;
                    default:
                        cur = cur.clone();
                        cur[at] = (byte) r.nextInt(256);
                }
            }
            return cur;
        }

        byte[] hostileKey(String device) {
            switch (r.nextInt(6)) {
                case 0:
                    return null;
                case 1:
                    return new byte[0];
                case 2:
                    return (device + "\u0000").getBytes(StandardCharsets.UTF_8);
                case 3:
                    return new byte[] {(byte) 0xFF, (byte) 0xFE, 0};
                case 4:
                    return (device + "x").getBytes(StandardCharsets.UTF_8);
                default:
                    return device.toUpperCase().getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    /** {@code s} as a JSON string; control characters and unpaired surrogates as {@code \\u} escapes. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean paired =
                    Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
            if (paired) {
                b.append(c).append(s.charAt(++i));
            } else if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static String unquote(String json) {
        // Only for strings this class wrote; decodes the escapes quote() makes.
        StringBuilder b = new StringBuilder();
        for (int i = 1; i < json.length() - 1; i++) {
            char c = json.charAt(i);
            if (c == '\\') {
                char n = json.charAt(++i);
                if (n == 'u') {
                    b.append((char) Integer.parseInt(json.substring(i + 1, i + 5), 16));
                    i += 4;
                } else {
                    b.append(n);
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static byte[] utf8(CharSequence s) {
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }
}
