package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The alerts the Alertmanager held active during one scenario, read every few seconds in a
 * thread of its own: when each was first and last seen, counted from the scenario's start.
 */
final class AlertWatch implements AutoCloseable {
    private static final Duration POLL = Duration.ofSeconds(5);

    private final PrometheusApi api;
    private final long since;
    /** Alert name → {first seen, last seen}, in ms since {@link #since}. */
    private final Map<String, long[]> seen = new LinkedHashMap<>();

    private final Set<String> atStart;
    private final Thread thread;
    private volatile String failure;

    AlertWatch(PrometheusApi api) {
        this.api = api;
        this.since = System.currentTimeMillis();
        this.atStart = api.firing();
        record(atStart);
        this.thread = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            Thread.sleep(POLL.toMillis());
                            record(api.firing());
                            failure = null;
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            failure = e.getMessage();
                        }
                    }
                },
                "e2e-alerts");
        thread.setDaemon(true);
        thread.start();
    }

    /** What was active when the watch began (left over from the scenario before). */
    Set<String> atStart() {
        return atStart;
    }

    private synchronized void record(Set<String> firing) {
        long now = System.currentTimeMillis() - since;
        for (String a : firing) {
            seen.computeIfAbsent(a, k -> new long[] {now, now})[1] = now;
        }
    }

    synchronized Set<String> seen() {
        return Set.copyOf(seen.keySet());
    }

    /** True once {@code alert} has been seen active, waiting up to {@code timeout} for it. */
    boolean awaitSeen(String alert, Duration timeout) {
        return Await.until(timeout, POLL, () -> seen().contains(alert));
    }

    /** The Alertmanager's active alerts now, polled until none is left but {@code allowed}. */
    Set<String> awaitOnly(Set<String> allowed, Duration timeout) {
        AtomicReference<Set<String>> left = new AtomicReference<>(Set.of());
        Await.until(timeout, POLL, () -> {
            left.set(api.firing().stream().filter(a -> !allowed.contains(a)).collect(Collectors.toSet()));
            return left.get().isEmpty();
        });
        return left.get();
    }

    /** "LineflowJobRestarted 41 s–1 min 32 s, …", or "none". */
    synchronized String timeline() {
        if (seen.isEmpty()) {
            return "none" + (failure == null ? "" : " (last read failed: " + failure + ")");
        }
        return seen.entrySet().stream()
                .map(e -> e.getKey() + " " + DrillReport.seconds(e.getValue()[0]) + "–"
                        + DrillReport.seconds(e.getValue()[1]))
                .collect(Collectors.joining(", "));
    }

    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join();
    }
}
