package io.lineflow.drill.soak;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a line of the JVM's unified GC log ({@code -Xlog:gc}): the heap live after a full
 * collection. Only a full collection says what is live: after a young one the heap still holds
 * whatever garbage reached the old generation since the last marking, and G1 marks only when the
 * old generation fills to its threshold (45 % of the heap), which a soak's small heaps may never do.
 */
public final class GcLog {
    /** {@code 120M->40M(512M)}: before, after, committed. */
    private static final Pattern HEAP = Pattern.compile("(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)");

    private GcLog() {}

    /** The heap in use after the full collection a line reports, in bytes; empty for any other line. */
    public static OptionalLong liveAfterFull(String line) {
        if (!line.contains("[gc]") || !line.contains(" Pause Full ")) {
            return OptionalLong.empty();
        }
        Matcher m = HEAP.matcher(line);
        if (!m.find()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(m.group(3)) * unit(m.group(4)));
    }

    private static long unit(String u) {
        return switch (u) {
            case "K" -> 1L << 10;
            case "M" -> 1L << 20;
            default -> 1L << 30;
        };
    }
}
