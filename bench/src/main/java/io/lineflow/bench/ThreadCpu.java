package io.lineflow.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The CPU time of the threads whose names contain one of some parts, e.g. one Flink job's task
 * and Kafka fetcher threads, while that job runs. A task thread ends with its job, and a dead
 * thread's time can no longer be read, so the threads are sampled every {@link #PERIOD_MS} ms:
 * the figure misses at most a thread's last period, so it is low by at most that much per thread.
 * JVM-internal threads (GC, JIT) are not Java threads and not counted here; {@link #gcNanos}
 * reads the garbage collector's.
 */
final class ThreadCpu {
    static final long PERIOD_MS = 10;

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final List<String> nameParts;
    /** Whether a thread id's name matched; every id seen is here, matched or not. */
    private final Map<Long, Boolean> matched = new HashMap<>();
    /** CPU nanos of a matched thread when first seen (0 for threads started after {@link #start}). */
    private final Map<Long, Long> firstNanos = new HashMap<>();

    private final Map<Long, Long> lastNanos = new HashMap<>();
    private final ScheduledExecutorService sampler;

    private ThreadCpu(List<String> nameParts) {
        this.nameParts = nameParts;
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-thread-cpu");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts sampling the threads that have one of {@code nameParts} in their name. */
    static ThreadCpu start(String... nameParts) {
        ThreadCpu cpu = new ThreadCpu(List.of(nameParts));
        cpu.sample(true);
        cpu.sampler.scheduleAtFixedRate(() -> cpu.sample(false), PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        return cpu;
    }

    /** Stops sampling; the CPU seconds the matched threads used since {@link #start}. */
    double stop() throws InterruptedException {
        sampler.shutdown();
        if (!sampler.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the thread CPU sampler did not stop");
        }
        sample(false);
        if (lastNanos.isEmpty()) {
            throw new IllegalStateException("no thread named with any of " + nameParts + " ran");
        }
        long nanos = 0;
        for (Map.Entry<Long, Long> t : lastNanos.entrySet()) {
            nanos += t.getValue() - firstNanos.get(t.getKey());
        }
        return nanos / 1e9;
    }

    /**
     * CPU nanoseconds the JVM's garbage collector threads have used so far (HotSpot names them
     * {@code GC Thread#n} and {@code G1 ...}). They are not Java threads, so they are read from
     * Linux's {@code /proc/self/task/<tid>/schedstat}, whose first field is the thread's time on
     * a CPU in nanoseconds.
     */
    static long gcNanos() throws IOException {
        long nanos = 0;
        int threads = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String name;
                String schedstat;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                    schedstat = Files.readString(task.resolve("schedstat"));
                } catch (IOException ended) {
                    // The thread ended since the listing: NoSuchFileException, or ESRCH mid-read.
                    continue;
                }
                if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
                    nanos += Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
                    threads++;
                }
            }
        }
        if (threads == 0) {
            throw new IllegalStateException("no garbage collector thread in /proc/self/task (G1 on Linux expected)");
        }
        return nanos;
    }

    /** Reads the matched threads' time; {@code atStart}, it is their baseline. */
    private synchronized void sample(boolean atStart) {
        for (long id : threads.getAllThreadIds()) {
            Boolean isMatched = matched.get(id);
            if (isMatched == null) {
                ThreadInfo info = threads.getThreadInfo(id);
                isMatched = info != null && nameParts.stream().anyMatch(info.getThreadName()::contains);
                matched.put(id, isMatched);
            }
            if (!isMatched) {
                continue;
            }
            long nanos = threads.getThreadCpuTime(id);
            if (nanos < 0) {
                continue; // ended since the ids were listed
            }
            firstNanos.putIfAbsent(id, atStart ? nanos : 0L);
            lastNanos.put(id, nanos);
        }
    }
}
