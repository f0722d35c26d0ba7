package io.lineflow.bench;

import io.lineflow.testing.CommandLines;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The benchmark's sizes, from {@code --name value} arguments; defaults are the full run. */
public final class BenchSettings {
    /** Events pre-loaded into the throughput topic. */
    public long events = 2_000_000;
    /** Devices in the throughput topic. */
    public int devices = 2_000;
    /** Events per device per 5-minute window. */
    public int eventsPerWindow = 100;

    public int partitions = 4;
    /** Flink parallelism, and consumer threads of the consume limit. */
    public int parallelism = 2;
    /** Runs of each throughput row; the median is reported. */
    public int repeats = 3;
    /**
     * Untimed runs of a throughput row right before each of its timed runs, so that it is timed
     * with the JIT's code fitted to itself, not to the row that ran before it.
     */
    public int warmups = 1;
    /** Checkpoint interval of the throughput runs (lineflow and SQL alike), ms. */
    public long checkpointIntervalMs = 10_000;
    /** Devices holding open window state in the checkpoint-cost rows. */
    public int checkpointDevices = 10_000;
    /** Events each of those devices has in its open window before the checkpoints are measured. */
    public int checkpointEvents = 3;
    /** Completed checkpoints to wait for per state backend. */
    public int checkpoints = 10;
    /** Checkpoint interval of the checkpoint-cost rows, ms. */
    public long checkpointCostIntervalMs = 1_000;
    /** Window closes to upsert in the sink rows; one row per device. */
    public List<Integer> sinkDevices = List.of(10_000, 100_000);
    /** Skip the Flink SQL row (e.g. to profile lineflow alone). */
    public boolean sql = true;
    /** Working directory: Kafka and PostgreSQL data, checkpoints, the report. */
    public Path workDir = Path.of("target", "bench");

    public Path report = Path.of("target", "bench-report.md");
    /** The reconciler's scale measurement (run in its own JVM by {@code make bench}), if any. */
    public Path reconcilerReport;
    /**
     * The other Flink line's build of this module ({@code classes} and {@code bench.classpath} in
     * it), whose JVM runs rows 8 and 8b; none, and those rows are not run.
     */
    public Path otherLine;

    /** The options, each with a value; durations in Flink's syntax ({@code 10 s}, {@code 500 ms}). */
    private static final List<String> OPTIONS = List.of(
            "events",
            "devices",
            "events-per-window",
            "partitions",
            "parallelism",
            "repeats",
            "warmups",
            "checkpoint-interval",
            "checkpoint-devices",
            "checkpoint-events",
            "checkpoints",
            "checkpoint-cost-interval",
            "sink-devices",
            "sql",
            "work-dir",
            "report",
            "reconciler-report",
            "other-line");

    /** Parses {@code --key value} pairs; an unknown key fails with the list of known ones. */
    public static BenchSettings parse(String... args) {
        Map<String, String> given;
        try {
            given = CommandLines.parse(List.of(args), OPTIONS);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ". " + usage(), e);
        }
        BenchSettings s = new BenchSettings();
        for (Map.Entry<String, String> o : given.entrySet()) {
            String v = o.getValue();
            switch (o.getKey()) {
                case "events" -> s.events = Long.parseLong(v.replace("_", ""));
                case "devices" -> s.devices = Integer.parseInt(v);
                case "events-per-window" -> s.eventsPerWindow = Integer.parseInt(v);
                case "partitions" -> s.partitions = Integer.parseInt(v);
                case "parallelism" -> s.parallelism = Integer.parseInt(v);
                case "repeats" -> s.repeats = Integer.parseInt(v);
                case "warmups" -> s.warmups = Integer.parseInt(v);
                case "checkpoint-interval" ->
                    s.checkpointIntervalMs =
                            CommandLines.duration(o.getKey(), v).toMillis();
                case "checkpoint-devices" -> s.checkpointDevices = Integer.parseInt(v);
                case "checkpoint-events" -> s.checkpointEvents = Integer.parseInt(v);
                case "checkpoints" -> s.checkpoints = Integer.parseInt(v);
                case "checkpoint-cost-interval" ->
                    s.checkpointCostIntervalMs =
                            CommandLines.duration(o.getKey(), v).toMillis();
                case "sink-devices" -> s.sinkDevices = ints(v);
                case "sql" -> s.sql = Boolean.parseBoolean(v);
                case "work-dir" -> s.workDir = Path.of(v);
                case "report" -> s.report = Path.of(v);
                case "reconciler-report" -> s.reconcilerReport = Path.of(v);
                case "other-line" -> s.otherLine = otherLine(v);
                default -> throw new IllegalStateException("option --" + o.getKey() + " is declared but not read");
            }
        }
        if (s.devices <= 0 || s.eventsPerWindow < 4 || s.events < (long) s.devices * s.eventsPerWindow) {
            throw new IllegalArgumentException(
                    "need devices > 0, events-per-window >= 4 and events >= devices * events-per-window"
                            + " (one full window), got " + s.devices + ", " + s.eventsPerWindow + ", " + s.events);
        }
        return s;
    }

    /** Whole windows: the event count is rounded down to devices × events-per-window × windows. */
    public int windows() {
        return (int) (events / ((long) devices * eventsPerWindow));
    }

    public long totalEvents() {
        return (long) windows() * devices * eventsPerWindow;
    }

    /** A folder holding a build of this module: its classes and its runtime classpath. */
    private static Path otherLine(String v) {
        Path build = Path.of(v);
        for (Path needed : List.of(build.resolve("classes"), build.resolve("bench.classpath"))) {
            if (!Files.exists(needed)) {
                throw new IllegalArgumentException("--other-line " + v + ": " + needed
                        + " is missing; the folder must hold a build of the bench for the other Flink line,"
                        + " e.g. target/flink-2.2 after mvn -Dflink.line=2.2 -pl bench -am package");
            }
        }
        return build;
    }

    private static List<Integer> ints(String v) {
        List<Integer> out = new ArrayList<>();
        for (String p : v.split(",")) {
            out.add(Integer.parseInt(p.trim().replace("_", "")));
        }
        return out;
    }

    static String usage() {
        return "Options: --events N --devices N --events-per-window N --partitions N --parallelism N"
                + " --repeats N --warmups N --checkpoint-interval D --checkpoint-devices N --checkpoint-events N"
                + " --checkpoints N"
                + " --checkpoint-cost-interval D --sink-devices N[,N] --sql true|false"
                + " --work-dir DIR --report FILE --reconciler-report FILE --other-line DIR";
    }

    @Override
    public String toString() {
        return String.format(
                        "%,d events (%,d devices × %d events × %d windows), %d partitions, parallelism %d, %d repeats, each after %d untimed run(s) of the same row,"
                                + " checkpoint every %d ms; checkpoint cost: %,d devices × %d events, %d checkpoints every %d ms;"
                                + " sink: %s devices",
                        totalEvents(),
                        devices,
                        eventsPerWindow,
                        windows(),
                        partitions,
                        parallelism,
                        repeats,
                        warmups,
                        checkpointIntervalMs,
                        checkpointDevices,
                        checkpointEvents,
                        checkpoints,
                        checkpointCostIntervalMs,
                        sinkDevices)
                + (otherLine == null ? "" : "; the other Flink line's build: " + otherLine);
    }
}
