package io.lineflow.drill.local;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.soak.ClassHistogram;
import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakVerdicts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The live heap of every Flink process and the job classloaders it holds, from {@code jcmd
 * GC.class_histogram}: a full collection each, so only every {@link #EVERY_SAMPLES}th sample. The
 * histograms stay in the work folder to show what a growing heap holds: the latest per process
 * ({@code <process>-histogram.txt}) and the first in the growth verdicts' span, from {@code
 * firstFrom} on ({@code <process>-histogram-first.txt}).
 */
final class HeapProbe implements SoakSampler.Probe {
    /** Every 12 samples (2 min): each measure is a full GC. */
    static final int EVERY_SAMPLES = 12;

    /** The classloaders Flink makes for a job's jar, one per job and process that runs it. */
    static final Set<String> JOB_CLASSLOADERS = Set.of(
            "org.apache.flink.util.ChildFirstClassLoader",
            "org.apache.flink.util.FlinkUserCodeClassLoaders$ParentFirstClassLoader");

    /** How long the end waits for a JVM's threads to leave the compiled code it set aside. */
    private static final Duration DISCARD_WAIT = Duration.ofSeconds(30);

    /** How many of the classes that grew most the end of the soak names per JVM. */
    private static final int GREW_SHOWN = 5;

    private final Supplier<List<FlinkProcesses.FlinkProcess>> processes;
    private final Path work;
    private final long firstFrom;
    private final Consumer<String> log;
    private int samples;

    HeapProbe(Supplier<List<FlinkProcesses.FlinkProcess>> processes, Path work, long firstFrom, Consumer<String> log) {
        this.processes = processes;
        this.work = work;
        this.firstFrom = firstFrom;
        this.log = log;
    }

    /**
     * Whether the sample {@code index} (one every 10 s from the start) counts the heap: every
     * {@link #EVERY_SAMPLES}, half a period after the faults' phase. Faults every 2 minutes (or a
     * multiple) then fall a minute before a count, not on it, and the heap verdict, which leaves
     * out the counts taken during a recovery, keeps them.
     */
    static boolean countsHeap(int index) {
        return (index + EVERY_SAMPLES / 2) % EVERY_SAMPLES == 0;
    }

    @Override
    public void sample(long now, SoakRecord record) {
        int index = samples++;
        boolean counts = countsHeap(index);
        boolean next = countsHeap(index + 1);
        for (FlinkProcesses.FlinkProcess p : processes.get()) {
            if (!p.alive()) {
                continue;
            }
            if (next && p.name().startsWith("taskmanager")) {
                // A sample before the heap's: the compiled code of Flink's loops may still refer
                // to the classes of a job that has left (CompiledCode); set aside now, the loops
                // go on interpreted and what they call is compiled again before the heap count.
                try {
                    CompiledCode.discard(p.pid(), work);
                } catch (IOException e) {
                    // measured as it is
                }
            }
            String histogram = counts ? histogram(p, now) : null;
            if (histogram != null) {
                ClassHistogram.liveBytes(histogram)
                        .ifPresent(bytes -> record.add(SoakVerdicts.HEAP, "bytes", p.name(), now, bytes));
                ClassHistogram.instances(histogram, JOB_CLASSLOADERS)
                        .ifPresent(n -> record.add(SoakVerdicts.LOADERS, "classloaders", p.name(), now, n));
            }
        }
    }

    /**
     * The last measure of every live JVM, once the table is checked: its live heap and job
     * classloaders go in the record (the verdicts judge the very end); what grew most since the
     * first histogram in the growth verdicts' span is logged. A JVM that holds more job
     * classloaders than it keeps for the running job ({@link SoakVerdicts#loadersKept}) is asked
     * to set its compiled code aside and counted again (the verdict judges that count: {@link
     * CompiledCode} says why); if it still holds more, it leaves a heap dump ({@code
     * <process>.hprof}, live objects only) from which the holder can be found.
     */
    void atEnd(SoakRecord record) {
        long now = System.currentTimeMillis();
        for (FlinkProcesses.FlinkProcess p : processes.get()) {
            String histogram = p.alive() ? histogram(p, now) : null;
            if (histogram == null) {
                continue;
            }
            ClassHistogram.liveBytes(histogram)
                    .ifPresent(bytes -> record.add(SoakVerdicts.HEAP, "bytes", p.name(), now, bytes));
            long loaders = ClassHistogram.instances(histogram, JOB_CLASSLOADERS).orElse(0);
            record.add(SoakVerdicts.LOADERS, "classloaders", p.name(), now, loaders);
            logGrowth(p, histogram);
            int kept = SoakVerdicts.loadersKept(p.name());
            if (loaders > kept) {
                long held = loaders;
                loaders = afterDiscardingCompiledCode(p, loaders, kept);
                record.add(SoakVerdicts.LOADERS, "classloaders", p.name(), System.currentTimeMillis(), loaders);
                log.accept(p.name() + " held " + held + " job classloaders; " + loaders
                        + " once its compiled code was set aside");
            }
            if (loaders > kept) {
                Path dump = work.resolve(p.name() + ".hprof").toAbsolutePath();
                String answer = jdkTool(
                        dump.resolveSibling(p.name() + "-heap-dump.txt"),
                        "jcmd",
                        pid(p),
                        "GC.heap_dump",
                        dump.toString());
                log.accept(p.name() + " holds " + loaders + " job classloaders: "
                        + (Files.isRegularFile(dump) ? "heap dump " + dump : "no heap dump (" + answer + ")"));
            }
        }
    }

    private void logGrowth(FlinkProcesses.FlinkProcess p, String histogram) {
        try {
            List<ClassHistogram.Growth> grew =
                    ClassHistogram.growth(Files.readString(firstHistogram(p)), histogram, GREW_SHOWN);
            log.accept(p.name() + " grew most in: "
                    + (grew.isEmpty()
                            ? "nothing"
                            : grew.stream()
                                    .map(g -> g.className() + " " + SoakVerdicts.human(g.bytes()) + " ("
                                            + (g.instances() >= 0 ? "+" : "") + g.instances() + ")")
                                    .collect(Collectors.joining(", "))));
        } catch (IOException e) {
            // no histogram of it in the span: it started later
        }
    }

    /**
     * The job classloaders a JVM holds once its JIT-compiled code is set aside ({@link
     * CompiledCode}): the compiled frames on its threads' stacks are deoptimized as each thread
     * returns to them, so the count is polled for up to {@link #DISCARD_WAIT}, or until it is
     * down to what the JVM keeps for the running job.
     */
    private long afterDiscardingCompiledCode(FlinkProcesses.FlinkProcess p, long held, int kept) {
        try {
            CompiledCode.discard(p.pid(), work);
        } catch (IOException e) {
            log.accept(p.name() + ": " + e.getMessage());
            return held;
        }
        long[] now = {held};
        Await.until(DISCARD_WAIT, Duration.ofSeconds(5), () -> {
            String h = histogram(p, System.currentTimeMillis());
            if (h != null) {
                now[0] = ClassHistogram.instances(h, JOB_CLASSLOADERS).orElse(now[0]);
            }
            return now[0] <= kept;
        });
        return now[0];
    }

    /**
     * What is live in a JVM: {@code jcmd <pid> GC.class_histogram} collects the whole heap and
     * counts what is left by class, a pause of a few tens of milliseconds. Null when the JVM does
     * not answer within 30 s, or skipped the full collection (garbage would be counted).
     */
    private String histogram(FlinkProcesses.FlinkProcess p, long now) {
        Path out = work.resolve(p.name() + "-histogram.txt");
        OptionalLong before = fullCollections(p);
        String histogram = jdkTool(out, "jcmd", pid(p), "GC.class_histogram");
        if (histogram != null
                && before.isPresent()
                && fullCollections(p).orElse(Long.MAX_VALUE) <= before.getAsLong()) {
            // Its full collection was skipped (ClassHistogram.fullCollections): garbage counted.
            return null;
        }
        if (histogram != null
                && ClassHistogram.liveBytes(histogram).isPresent()
                && now >= firstFrom
                && !Files.exists(firstHistogram(p))) {
            try {
                Files.copy(out, firstHistogram(p));
            } catch (IOException e) {
                // no growth list for this process
            }
        }
        return histogram;
    }

    /** How many full collections the JVM has made ({@code jstat -gc}); empty when it does not answer. */
    private OptionalLong fullCollections(FlinkProcesses.FlinkProcess p) {
        String out = jdkTool(work.resolve(p.name() + "-jstat.txt"), "jstat", "-gc", pid(p));
        return out == null ? OptionalLong.empty() : ClassHistogram.fullCollections(out);
    }

    private Path firstHistogram(FlinkProcesses.FlinkProcess p) {
        return work.resolve(p.name() + "-histogram-first.txt");
    }

    private static String pid(FlinkProcesses.FlinkProcess p) {
        return String.valueOf(p.pid());
    }

    /** Runs a JDK tool ({@code jcmd}, {@code jstat}) into a file and returns what it printed; null when it took over 30 s. */
    private static String jdkTool(Path out, String tool, String... args) {
        List<String> line = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", tool).toString()));
        line.addAll(List.of(args));
        try {
            Process run = new ProcessBuilder(line)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            if (!run.waitFor(30, TimeUnit.SECONDS)) {
                run.destroyForcibly();
                return null;
            }
            return Files.readString(out);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
