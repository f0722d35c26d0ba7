package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The alerts the Alertmanager held active during one scenario, read every few seconds in a
 * thread of its own: when each was first and last seen, counted from the scenario's start; and
 * what the scenario's alerts must have been ({@link #problems}).
 */
final class AlertWatch implements AutoCloseable {
    private static final Duration POLL = Duration.ofSeconds(5);

    private final PrometheusApi api;
    private final InstantSource clock;
    private final Duration every;
    private final long since;
    /** Alert name → {first seen, last seen}, in ms since {@link #since}. */
    private final Map<String, long[]> seen = new LinkedHashMap<>();

    private final Set<String> atStart;
    private final Thread thread;
    private volatile String failure;

    /** Reads the Alertmanager now, then every 5 s until closed. */
    static AlertWatch start(PrometheusApi api) {
        AlertWatch watch = new AlertWatch(api, InstantSource.system(), POLL);
        watch.thread.start();
        return watch;
    }

    /**
     * Reads the Alertmanager now and at each {@link #poll}, which the thread {@link #start} starts
     * calls {@code every} so often; the waits look again as often.
     */
    AlertWatch(PrometheusApi api, InstantSource clock, Duration every) {
        this.api = api;
        this.clock = clock;
        this.every = every;
        this.since = clock.millis();
        this.atStart = api.firing();
        record(atStart);
        this.thread = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            Thread.sleep(every.toMillis());
                        } catch (InterruptedException e) {
                            return;
                        }
                        poll();
                    }
                },
                "e2e-alerts");
        thread.setDaemon(true);
    }

    /** Reads the Alertmanager once: what is active is seen now; a failed read is kept for {@link #timeline}. */
    void poll() {
        try {
            record(api.firing());
            failure = null;
        } catch (RuntimeException e) {
            failure = e.getMessage();
        }
    }

    /** What was active when the watch began (left over from the scenario before). */
    Set<String> atStart() {
        return atStart;
    }

    private synchronized void record(Set<String> firing) {
        long now = clock.millis() - since;
        for (String a : firing) {
            seen.computeIfAbsent(a, k -> new long[] {now, now})[1] = now;
        }
    }

    synchronized Set<String> seen() {
        return Set.copyOf(seen.keySet());
    }

    /** True once {@code alert} has been seen active, waiting up to {@code timeout} for it. */
    boolean awaitSeen(String alert, Duration timeout) {
        return Await.until(timeout, every, () -> seen().contains(alert));
    }

    /** The Alertmanager's active alerts now, polled until none is left but {@code allowed}. */
    Set<String> awaitOnly(Set<String> allowed, Duration timeout) {
        AtomicReference<Set<String>> left = new AtomicReference<>(Set.of());
        Await.until(timeout, every, () -> {
            left.set(api.firing().stream().filter(a -> !allowed.contains(a)).collect(Collectors.toSet()));
            return left.get().isEmpty();
        });
        return left.get();
    }

    /** "LineflowJobRestarted 41.0 s–92.0 s, …", or "none". */
    synchronized String timeline() {
        if (seen.isEmpty()) {
            return "none" + (failure == null ? "" : " (last read failed: " + failure + ")");
        }
        return seen.entrySet().stream()
                .map(e -> e.getKey() + " " + DrillReport.seconds(e.getValue()[0]) + "–"
                        + DrillReport.seconds(e.getValue()[1]))
                .collect(Collectors.joining(", "));
    }

    /**
     * What is wrong with the alerts of {@code scenario} (docs/monitoring.md), from what the
     * Alertmanager held active: at the watch's start, {@code seen} at any read once the waits
     * for the alerts it raises are over, and {@code left} active but the restart alert once the
     * wait for the rest to clear is over (a control leaves its own). It must have raised {@link
     * KubernetesScenario#raises}; after a healthy scenario nothing is left firing but {@value
     * KubernetesScenario#JOB_RESTARTED}, which clears 10 min after the restore by design; and a
     * scenario that strikes no fault (the steady one, an incident) raised nothing but its own.
     *
     * @param deadline how long the wait for each alert it raises was
     * @param clear how long the wait for the rest to clear was
     */
    static List<String> problems(
            KubernetesScenario scenario,
            Set<String> atStart,
            Set<String> seen,
            Set<String> left,
            Duration deadline,
            Duration clear) {
        List<String> problems = new ArrayList<>();
        for (String alert : scenario.raises()) {
            if (!seen.contains(alert)) {
                problems.add("ALERT " + alert + " did not fire (waited " + deadline.toMinutes()
                        + " min after the scenario's table check)");
            }
        }
        if (!scenario.isControl()) {
            if (scenario.fault() == null) {
                Set<String> raised = new HashSet<>(seen);
                raised.removeAll(atStart);
                raised.removeAll(scenario.raises());
                if (!raised.isEmpty()) {
                    problems.add("ALERT the " + scenario.id() + " scenario raised " + raised);
                }
            }
            if (!left.isEmpty()) {
                problems.add("ALERT still firing " + clear.toMinutes() + " min after a healthy scenario: " + left);
            }
        }
        return problems;
    }

    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join();
    }
}
