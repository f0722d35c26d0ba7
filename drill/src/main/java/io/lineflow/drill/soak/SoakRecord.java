package io.lineflow.drill.soak;

import io.lineflow.drill.core.TimeChart.Point;
import io.lineflow.drill.soak.Recovery.LagSample;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one soak run measured, as it measured it: the samples of every series, the lag, the faults
 * struck and the table checks. Written by the sampler and the run, read by {@link SoakVerdicts}
 * and {@link SoakReport}; every method is synchronized, so they may run at the same time.
 */
public final class SoakRecord {
    /** A fault as struck: when it began and when its own action ended (a partition healed…). */
    public record Struck(String fault, long at, long ended, String error) {}

    /** A check of the table: the windows before {@code windowsBefore}, or the whole table at the end. */
    public record Check(long at, String what, boolean exact, String detail) {}

    public final long startedAt;
    public final SoakOptions options;
    public final int devices;
    /** The steady bound on the consumer lag, in records. */
    public final long steadyLag;

    private final Map<String, Map<String, List<Point>>> charts = new LinkedHashMap<>();
    private final Map<String, String> units = new LinkedHashMap<>();
    private final List<LagSample> lag = new ArrayList<>();
    private final List<Struck> struck = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();

    public SoakRecord(long startedAt, SoakOptions options, int devices, long steadyLag) {
        this.startedAt = startedAt;
        this.options = options;
        this.devices = devices;
        this.steadyLag = steadyLag;
    }

    /** Adds a point to line {@code line} of chart {@code chart} (in {@code unit}). */
    public synchronized void add(String chart, String unit, String line, long at, double value) {
        units.putIfAbsent(chart, unit);
        charts.computeIfAbsent(chart, c -> new LinkedHashMap<>())
                .computeIfAbsent(line, l -> new ArrayList<>())
                .add(new Point(at, value));
    }

    public synchronized void lag(LagSample s) {
        lag.add(s);
        if (s.lag() != null) {
            add(SoakVerdicts.LAG, "records", "uncommitted records", s.at(), s.lag());
        }
    }

    public synchronized void struck(Struck s) {
        struck.add(s);
    }

    public synchronized void check(Check c) {
        checks.add(c);
    }

    public synchronized Map<String, Map<String, List<Point>>> charts() {
        Map<String, Map<String, List<Point>>> copy = new LinkedHashMap<>();
        charts.forEach((c, lines) -> {
            Map<String, List<Point>> l = new LinkedHashMap<>();
            lines.forEach((name, points) -> l.put(name, List.copyOf(points)));
            copy.put(c, l);
        });
        return copy;
    }

    public synchronized String unit(String chart) {
        return units.getOrDefault(chart, "");
    }

    public synchronized List<LagSample> lag() {
        return List.copyOf(lag);
    }

    public synchronized List<Struck> struck() {
        return List.copyOf(struck);
    }

    public synchronized List<Check> checks() {
        return List.copyOf(checks);
    }

    /** From {@code s} to steady lag (see {@link Recovery}), with the next strike as its bound; null if never. */
    public synchronized Long recovery(Struck s) {
        long until = struck.stream()
                .mapToLong(Struck::at)
                .filter(at -> at > s.at())
                .min()
                .orElse(Long.MAX_VALUE);
        return Recovery.millis(lag, s.at(), s.ended(), until, steadyLag);
    }

    /** The newest lag sample, if any. */
    public synchronized LagSample lastLag() {
        return lag.isEmpty() ? null : lag.get(lag.size() - 1);
    }
}
