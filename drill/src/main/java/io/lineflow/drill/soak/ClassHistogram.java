package io.lineflow.drill.soak;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
            Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)(?:\\s+\\(.*\\))?\\s*$");

    /** What a class's instances grew by between two histograms of one JVM: bytes, and instances (may be fewer). */
    public record Growth(String className, long bytes, long instances) {}

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
        Map<String, long[]> rows = rows(output);
        return OptionalLong.of(classNames.stream()
                .mapToLong(c -> rows.getOrDefault(c, new long[2])[0])
                .sum());
    }

    /**
     * The classes whose live bytes grew the most from one histogram of a JVM to a later one, the
     * largest growth first, at most {@code top} of them; a class absent from a histogram has none
     * there. Empty when either output has no total.
     */
    public static List<Growth> growth(String before, String after, int top) {
        if (liveBytes(before).isEmpty() || liveBytes(after).isEmpty()) {
            return List.of();
        }
        Map<String, long[]> was = rows(before);
        List<Growth> out = new ArrayList<>();
        rows(after).forEach((name, now) -> {
            long[] then = was.getOrDefault(name, new long[2]);
            if (now[1] > then[1]) {
                out.add(new Growth(name, now[1] - then[1], now[0] - then[0]));
            }
        });
        out.sort(Comparator.comparingLong(Growth::bytes).reversed());
        return List.copyOf(out.subList(0, Math.min(top, out.size())));
    }

    /** Class name to {instances, bytes}; one row per class (jcmd prints a class once per loader, summed here). */
    private static Map<String, long[]> rows(String output) {
        Map<String, long[]> rows = new HashMap<>();
        Matcher m = ROW.matcher(output);
        while (m.find()) {
            long[] r = rows.computeIfAbsent(m.group(3), k -> new long[2]);
            r[0] += Long.parseLong(m.group(1));
            r[1] += Long.parseLong(m.group(2));
        }
        return rows;
    }

    /**
     * How many full collections a JVM has made, from what {@code jstat -gc <pid>} prints (its
     * {@code FGC} column); empty when the output has no such column. A histogram is exact only
     * when its own full collection ran: HotSpot skips it while a thread holds the GC locker (JNI
     * code in a critical region, as RocksDB's during a savepoint), logs "GC locker is held;
     * pre-dump GC was skipped" and counts the garbage too; the count of full collections, taken
     * before and after, tells.
     */
    public static OptionalLong fullCollections(String jstatGc) {
        List<String> lines =
                jstatGc.lines().map(String::trim).filter(l -> !l.isEmpty()).toList();
        if (lines.size() < 2) {
            return OptionalLong.empty();
        }
        List<String> header = List.of(lines.get(0).split("\\s+"));
        String[] values = lines.get(1).split("\\s+");
        int i = header.indexOf("FGC");
        if (i < 0 || i >= values.length) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(values[i]));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
