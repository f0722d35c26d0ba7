package io.lineflow.drill.soak;

import io.lineflow.drill.core.TimeChart.Point;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The soak's verdict lines, judged on a {@link SoakRecord}: the table exact at every check, heap
 * after GC and checkpoint size flat over the trend span, every recovery to steady lag in time.
 * Pure.
 */
public final class SoakVerdicts {
    /** The shortest span a growth verdict is judged on; a shorter run shows its slopes only. */
    static final long MIN_SPAN_MILLIS = 600_000;

    /**
     * How long after a fault a process may still hold the classloader the fault released: the
     * PostgreSQL driver's cleanup thread keeps it until it has been idle for 30 s.
     */
    static final long RELEASE_MILLIS = 60_000;

    /** Growth allowed over the trend span, in % of the level per 10 minutes. */
    public static final double GROWTH_BOUND_PERCENT = 1.0;

    public static final String HEAP = "heap live after a full GC";
    public static final String LOADERS = "job classloaders live after a full GC";
    public static final String RSS = "resident set size (RSS)";
    public static final String CHECKPOINT_SIZE = "checkpoint size";
    public static final String CHECKPOINT_DURATION = "checkpoint duration";
    public static final String ROCKSDB_BYTES = "RocksDB files on disk: size";
    public static final String ROCKSDB_FILES = "RocksDB files on disk: count";
    public static final String JDBC = "open JDBC connections (pg_stat_activity)";
    public static final String LAG = "consumer lag";
    /** The line of {@link #CHECKPOINT_SIZE} judged flat: the whole state. */
    public static final String FULL = "full";

    /** One verdict line. */
    public record Verdict(String name, boolean passed, String detail) {}

    private SoakVerdicts() {}

    public static List<Verdict> judge(SoakRecord r, long endedAt) {
        List<Verdict> out = new ArrayList<>();
        List<SoakRecord.Check> checks = r.checks();
        long bad = checks.stream().filter(c -> !c.exact()).count();
        boolean finalCheck = checks.stream().anyMatch(c -> c.what().startsWith("end"));
        out.add(new Verdict(
                "exact",
                bad == 0 && finalCheck,
                !finalCheck
                        ? "the final check did not run"
                        : bad == 0
                                ? "the table was exact at all " + checks.size() + " checks (the end's included)"
                                : bad + " of " + checks.size() + " checks found the table wrong"));
        long from = endedAt - r.options.trendSpan().toMillis();
        String span = "over the last " + r.options.trendSpan().toMinutes() + " min";
        out.add(flat(
                HEAP + " outside recoveries",
                outsideRecoveries(r.charts().getOrDefault(HEAP, Map.of()), r),
                from,
                endedAt,
                span));
        Map<String, List<Point>> size = r.charts().getOrDefault(CHECKPOINT_SIZE, Map.of());
        out.add(flat(
                CHECKPOINT_SIZE + " (" + FULL + ")",
                size.containsKey(FULL) ? Map.of(FULL, size.get(FULL)) : Map.of(),
                from,
                endedAt,
                span));
        long limit = r.options.recoveryLimit().toMillis();
        List<String> slow = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        for (SoakRecord.Struck s : r.struck()) {
            Long rec = r.recovery(s);
            if (rec == null || rec > limit || s.error() != null) {
                slow.add(s.fault()
                        + (s.error() != null ? " (error)" : rec == null ? " (never)" : " (" + seconds(rec) + ")"));
            } else {
                times.add(rec);
            }
        }
        out.add(new Verdict(
                "recovery within " + seconds(limit),
                slow.isEmpty(),
                slow.isEmpty()
                        ? r.struck().size() + " faults, back to steady lag (≤ " + r.steadyLag + " records) in "
                                + (times.isEmpty()
                                        ? "—"
                                        : seconds(times.stream()
                                                        .mapToLong(Long::longValue)
                                                        .min()
                                                        .orElse(0)) + " – "
                                                + seconds(times.stream()
                                                        .mapToLong(Long::longValue)
                                                        .max()
                                                        .orElse(0)))
                        : "not in time: " + String.join(", ", slow)));
        out.add(released(r.charts().getOrDefault(LOADERS, Map.of()), r.struck(), JobManagerLoaders.PER_JOB));
        return out;
    }

    /**
     * Every classloader a process released is gone: at its last sample taken {@link
     * #RELEASE_MILLIS} or more after the last fault, a TaskManager holds at most one job
     * classloader (the running job's) and a JobManager at most {@code onJobManager}, what this
     * Flink line's JobManager keeps for a running job ({@link JobManagerLoaders}). A process whose
     * last such sample is missing (replaced, or sampled too soon after the last fault) is not
     * judged.
     */
    static Verdict released(Map<String, List<Point>> lines, List<SoakRecord.Struck> struck, int onJobManager) {
        long after = struck.stream().mapToLong(SoakRecord.Struck::at).max().orElse(Long.MIN_VALUE) + RELEASE_MILLIS;
        List<String> detail = new ArrayList<>();
        boolean passed = true;
        for (Map.Entry<String, List<Point>> e : new TreeMap<>(lines).entrySet()) {
            List<Point> late =
                    e.getValue().stream().filter(p -> p.at() >= after).toList();
            if (late.isEmpty()) {
                continue;
            }
            long held = Math.round(late.get(late.size() - 1).value());
            passed &= held <= loadersKept(e.getKey(), onJobManager);
            detail.add(e.getKey() + " " + held);
        }
        String name = "released job classloaders collected (≤ 1 per "
                + (onJobManager == 1 ? "JVM" : "TaskManager, " + onJobManager + " per JobManager")
                + " a minute after the last fault)";
        return detail.isEmpty()
                ? new Verdict(name + " (not judged)", true, "no sample a minute after the last fault")
                : new Verdict(name, passed, String.join(", ", detail));
    }

    /**
     * The job classloaders {@code process} keeps for the running job: a TaskManager the job's, a
     * JobManager what this Flink line's JobManager keeps ({@link JobManagerLoaders}).
     */
    public static int loadersKept(String process) {
        return loadersKept(process, JobManagerLoaders.PER_JOB);
    }

    private static int loadersKept(String process, int onJobManager) {
        return process.startsWith("jobmanager") ? onJobManager : 1;
    }

    /**
     * The samples not taken while the job recovered from a fault (from the fault until the lag is
     * steady again; the recovery limit when it never was). What a JVM holds then is the recovery's
     * working set (a savepoint's buffers, state being restored, the backlog being caught up), gone
     * once the job is steady; what a restart leaks stays, and shows in the samples after it.
     */
    static Map<String, List<Point>> outsideRecoveries(Map<String, List<Point>> lines, SoakRecord r) {
        List<long[]> recovering = new ArrayList<>();
        for (SoakRecord.Struck s : r.struck()) {
            Long rec = r.recovery(s);
            recovering.add(new long[] {
                s.at(), s.at() + (rec != null ? rec : r.options.recoveryLimit().toMillis())
            });
        }
        Map<String, List<Point>> out = new LinkedHashMap<>();
        lines.forEach((process, points) -> out.put(
                process,
                points.stream()
                        .filter(p -> recovering.stream().noneMatch(w -> p.at() >= w[0] && p.at() <= w[1]))
                        .toList()));
        return out;
    }

    /**
     * Flat when every line that covers at least half of the span grows by at most {@link
     * #GROWTH_BOUND_PERCENT}; a line of a process replaced mid-span is judged on its own samples.
     */
    static Verdict flat(String name, Map<String, List<Point>> lines, long from, long to, String span) {
        List<String> detail = new ArrayList<>();
        boolean passed = true;
        int judged = 0;
        for (Map.Entry<String, List<Point>> e : lines.entrySet()) {
            List<Point> in = e.getValue().stream().filter(p -> p.at() >= from).toList();
            if (in.isEmpty() || in.get(in.size() - 1).at() - in.get(0).at() < (to - from) / 2) {
                continue;
            }
            judged++;
            Trend t = Trend.of(in, from);
            passed &= t.flat(GROWTH_BOUND_PERCENT);
            detail.add(
                    String.format("%s %+.2f %% per 10 min of %s", e.getKey(), t.percentPer10Min(), human(t.level())));
        }
        if (to - from < MIN_SPAN_MILLIS) {
            // A few minutes are the JVMs' and RocksDB's warm-up: shown, not judged (a short run may
            // even hold too few of the heap's 2-minute samples to draw a line).
            return new Verdict(
                    name + " (not judged: a span under 10 min is warm-up)",
                    true,
                    detail.isEmpty() ? "too few samples to draw a line " + span : String.join("; ", detail));
        }
        if (judged == 0) {
            return new Verdict(name + " flat", false, "not judged: no series covers half of the span " + span);
        }
        return new Verdict(
                name + " flat (≤ " + GROWTH_BOUND_PERCENT + " % of the level per 10 min " + span + ")",
                passed,
                String.join("; ", detail));
    }

    public static String human(double v) {
        double a = Math.abs(v);
        if (a >= 1 << 30) {
            return String.format("%.2f GiB", v / (1 << 30));
        }
        if (a >= 1 << 20) {
            return String.format("%.1f MiB", v / (1 << 20));
        }
        if (a >= 1 << 10) {
            return String.format("%.1f KiB", v / (1 << 10));
        }
        return String.format("%.0f", v);
    }

    public static String seconds(long millis) {
        return String.format("%.1f s", millis / 1000.0);
    }
}
