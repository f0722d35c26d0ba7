package io.lineflow.drill.soak;

import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what {@code jcmd <pid> GC.class_histogram} prints: the bytes of every object live in the
 * heap. The command runs a full collection first and counts at a safepoint, so the total is exact
 * to the byte and nothing allocates between the collection and the count; the GC log's "Pause
 * Full" line says the same in whole MiB, too coarse to see 1 % of a 30 MiB heap.
 */
public final class ClassHistogram {
    /** {@code Total   59338   2831616}: instances, bytes. */
    private static final Pattern TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");

    /** {@code    869:             2            208  org.apache.flink.util.ChildFirstClassLoader}: rank, instances, bytes, name. */
    private static final Pattern ROW =
            Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+(\\S+)(?:\\s+\\(.*\\))?\\s*$");

    private ClassHistogram() {}

    /** The live heap the histogram counts, in bytes; empty when the output has no total (the JVM did not answer). */
    public static OptionalLong liveBytes(String output) {
        Matcher m = TOTAL.matcher(output);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /**
     * How many instances of the classes named are live (summed; a class absent from the histogram
     * has none); empty when the output has no total (the JVM did not answer).
     */
    public static OptionalLong instances(String output, Set<String> classNames) {
        if (liveBytes(output).isEmpty()) {
            return OptionalLong.empty();
        }
        long n = 0;
        Matcher m = ROW.matcher(output);
        while (m.find()) {
            if (classNames.contains(m.group(2))) {
                n += Long.parseLong(m.group(1));
            }
        }
        return OptionalLong.of(n);
    }
}
