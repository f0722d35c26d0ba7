package io.lineflow.rules.event;

import java.nio.charset.StandardCharsets;

/**
 * The one rule for text that reaches a PostgreSQL {@code text} column: PostgreSQL refuses U+0000,
 * and an unpaired UTF-16 surrogate has no UTF-8 form (the driver would store {@code ?} instead, so
 * two different ids could become one). Input text that breaks the rule is rejected; text the job
 * writes about input (a rejection's detail) is escaped instead.
 */
public final class PgText {
    private PgText() {}

    /**
     * Longest id (device, line, event) in UTF-8 bytes. The device and line ids are in btree
     * indexes, whose entries PostgreSQL caps at about 2.7 kB: a longer id is refused on every
     * retry (SQLState 54000), so it must be stopped at the parser.
     */
    public static final int MAX_ID_BYTES = 1024;

    /** Why {@code s} cannot be stored in a text column, or null if it can. */
    public static String problem(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\u0000') {
                return "contains U+0000 at index " + i;
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "contains an unpaired surrogate U+" + hex(c) + " at index " + i;
            }
        }
        return null;
    }

    /** Why {@code id} cannot be an id (empty, too long, or not storable), or null if it can. */
    public static String idProblem(String id) {
        if (id.isEmpty()) {
            return "is empty";
        }
        String p = problem(id);
        if (p != null) {
            return p;
        }
        // Cheap bound first: a UTF-8 byte is at most 3 per char of a BMP-only string.
        if (id.length() * 3 > MAX_ID_BYTES) {
            int bytes = id.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_ID_BYTES) {
                return "is " + bytes + " bytes long; at most " + MAX_ID_BYTES + " are allowed";
            }
        }
        return null;
    }

    /** {@code s} with every character {@link #problem} refuses written as {@code \\uXXXX}. */
    public static String escaped(String s) {
        if (s == null || problem(s) == null) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (c == '\u0000' || Character.isSurrogate(c)) {
                b.append("\\u").append(hex(c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String hex(char c) {
        return String.format("%04X", (int) c);
    }
}
