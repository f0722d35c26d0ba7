package io.lineflow.drill.soak;

import io.lineflow.drill.core.Fault;
import io.lineflow.testing.CommandLines;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The soak's command line: {@code --duration}, {@code --rate}, {@code --fault-every}, {@code
 * --faults}, {@code --recovery-limit}. A bad value fails at start with the option, the value and
 * what is allowed.
 */
public record SoakOptions(
        Duration duration, long rate, Duration faultEvery, List<Fault> faults, Duration recoveryLimit) {

    /**
     * Half of what {@code make bench} measured for lineflow's job on this machine would be 363,000
     * events/s (docs/bench.md, row 2: 726,020); the local cluster beside its own producer, broker and
     * PostgreSQL on 2 cores does not sustain that (docs/soak.md, "The rate"), so the default is what
     * it sustains with room to catch up after a fault.
     */
    public static final long DEFAULT_RATE = 2_000;

    /** Pieces each device produces per window: the bench's shape (100 events per device per window). */
    public static final int PIECES_PER_WINDOW = 100;

    /** The fewest events per second: one device per partition (4) at {@link #PIECES_PER_WINDOW}. */
    public static final long MIN_RATE = 400;

    public static final long MAX_RATE = 400_000;

    /**
     * The order {@code all} cycles through: the drill's six local faults and the hard ones (crashes
     * by kill -9 and network partitions). The four that change the Flink processes' shape come
     * first: the upgrade rescales the job from 2 to 4, the failover moves the job to another
     * JobManager, the full restart and the TaskManager kill start new JVMs, and each changes the
     * level of heap or checkpoint size by design or starts a JVM's warm-up. In an hour they fall
     * before the last 40 minutes, which the growth verdicts fit; what remains there restarts and
     * restores the job in the same JVMs (the partitions, the upgrade's second round), which is where
     * a leak per restart would show.
     */
    public static final List<Fault> CYCLE = List.of(
            Fault.UPGRADE,
            Fault.JM_FAILOVER,
            Fault.FULL_RESTART,
            Fault.TM_KILL,
            Fault.PG_KILL,
            Fault.PARTITION_DB,
            Fault.KAFKA_KILL,
            Fault.DB_OUTAGE,
            Fault.PARTITION_KAFKA,
            Fault.KAFKA_RESTART,
            Fault.PARTITION_JM);

    public static final SoakOptions DEFAULTS =
            new SoakOptions(Duration.ofMinutes(60), DEFAULT_RATE, Duration.ofMinutes(5), CYCLE, Duration.ofMinutes(2));

    private static final List<String> NAMES = List.of("duration", "rate", "fault-every", "faults", "recovery-limit");

    public SoakOptions {
        faults = List.copyOf(faults);
    }

    public static SoakOptions parse(List<String> args) {
        Map<String, String> given = CommandLines.parse(args, NAMES);
        Duration duration = DEFAULTS.duration;
        long rate = DEFAULTS.rate;
        Duration every = DEFAULTS.faultEvery;
        List<Fault> faults = DEFAULTS.faults;
        Duration recovery = DEFAULTS.recoveryLimit;
        for (Map.Entry<String, String> e : given.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "duration" -> duration = within(e.getKey(), v, Duration.ofMinutes(2), Duration.ofHours(24));
                case "rate" -> rate = rate(v);
                case "fault-every" -> every = within(e.getKey(), v, Duration.ofSeconds(30), Duration.ofHours(12));
                case "faults" -> faults = faults(v);
                case "recovery-limit" -> recovery = within(e.getKey(), v, Duration.ofSeconds(10), Duration.ofHours(1));
                default -> throw new IllegalStateException("option --" + e.getKey() + " is declared but not read");
            }
        }
        if (!faults.isEmpty() && every.multipliedBy(2).compareTo(duration) > 0) {
            throw new IllegalArgumentException("--fault-every " + every.toSeconds() + " s with --duration "
                    + duration.toSeconds() + " s: no fault would strike; allowed: at most half the duration"
                    + " (the last --fault-every of the run is kept quiet), or --faults none");
        }
        return new SoakOptions(duration, rate, every, faults, recovery);
    }

    private static Duration within(String option, String text, Duration min, Duration max) {
        Duration d = CommandLines.duration(option, text);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException("--" + option + " " + text + ": allowed from " + min.toSeconds()
                    + " s to " + max.toSeconds() + " s (Flink's duration syntax: 90 s, 5 min, 1 h)");
        }
        return d;
    }

    private static long rate(String text) {
        long r;
        try {
            r = Long.parseLong(text.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            r = -1;
        }
        if (r < MIN_RATE || r > MAX_RATE) {
            throw new IllegalArgumentException("--rate " + text + ": allowed a whole number of events per second from "
                    + MIN_RATE + " (one device per partition at " + PIECES_PER_WINDOW + " pieces per window) to "
                    + MAX_RATE);
        }
        return r;
    }

    private static List<Fault> faults(String text) {
        if (text.equals("all")) {
            return CYCLE;
        }
        if (text.equals("none")) {
            return List.of();
        }
        List<Fault> out = new ArrayList<>();
        for (String id : text.split(",")) {
            out.add(CYCLE.stream()
                    .filter(f -> f.id.equals(id.trim()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--faults " + text + ": unknown fault '" + id
                            + "'; allowed: all, none, or a comma list of "
                            + CYCLE.stream().map(f -> f.id).collect(Collectors.joining(", ")))));
        }
        return out;
    }

    /** Devices the input has at this rate: {@link #PIECES_PER_WINDOW} pieces and about one stop event each per window. */
    public int devices(Duration timePerWindow) {
        return (int) Math.max(4, Math.round(rate * timePerWindow.toMillis() / 1000.0 / (PIECES_PER_WINDOW + 1)));
    }

    /** The span the growth verdicts fit: the last 40 minutes, or the last two thirds of a shorter run. */
    public Duration trendSpan() {
        Duration twoThirds = duration.multipliedBy(2).dividedBy(3);
        return twoThirds.compareTo(Duration.ofMinutes(40)) < 0 ? twoThirds : Duration.ofMinutes(40);
    }

    /** The faults as the command line names them. */
    public String faultIds() {
        return faults.isEmpty() ? "none" : faults.stream().map(f -> f.id).collect(Collectors.joining(","));
    }
}
