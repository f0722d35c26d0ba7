package io.lineflow.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
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
 * JVM-internal threads (GC, JIT) are not Java threads and never counted.
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
    private boolean starting = true;

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
        cpu.sample();
        cpu.starting = false;
        cpu.sampler.scheduleAtFixedRate(cpu::sample, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        return cpu;
    }

    /** Stops sampling; the CPU seconds the matched threads used since {@link #start}. */
    double stop() throws InterruptedException {
        sampler.shutdown();
        if (!sampler.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the thread CPU sampler did not stop");
        }
        sample();
        if (lastNanos.isEmpty()) {
            throw new IllegalStateException("no thread named with any of " + nameParts + " ran");
        }
        long nanos = 0;
        for (Map.Entry<Long, Long> t : lastNanos.entrySet()) {
            nanos += t.getValue() - firstNanos.get(t.getKey());
        }
        return nanos / 1e9;
    }

    private synchronized void sample() {
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
            firstNanos.putIfAbsent(id, starting ? nanos : 0L);
            lastNanos.put(id, nanos);
        }
    }
}
