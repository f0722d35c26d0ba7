package io.lineflow.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    /** Untimed rounds of the throughput rows before the timed ones, so that each is JIT-compiled. */
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

    /** Parses {@code --key value} pairs; an unknown key fails with the list of known ones. */
    public static BenchSettings parse(String... args) {
        BenchSettings s = new BenchSettings();
        Map<String, String> in = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --key value, got '" + a + "'. " + usage());
            }
            in.put(a.substring(2), args[++i]);
        }
        in.forEach((k, v) -> {
            switch (k) {
                case "events":
                    s.events = Long.parseLong(v.replace("_", ""));
                    break;
                case "devices":
                    s.devices = Integer.parseInt(v);
                    break;
                case "events-per-window":
                    s.eventsPerWindow = Integer.parseInt(v);
                    break;
                case "partitions":
                    s.partitions = Integer.parseInt(v);
                    break;
                case "parallelism":
                    s.parallelism = Integer.parseInt(v);
                    break;
                case "repeats":
                    s.repeats = Integer.parseInt(v);
                    break;
                case "warmups":
                    s.warmups = Integer.parseInt(v);
                    break;
                case "checkpoint-interval-ms":
                    s.checkpointIntervalMs = Long.parseLong(v);
                    break;
                case "checkpoint-devices":
                    s.checkpointDevices = Integer.parseInt(v);
                    break;
                case "checkpoint-events":
                    s.checkpointEvents = Integer.parseInt(v);
                    break;
                case "checkpoints":
                    s.checkpoints = Integer.parseInt(v);
                    break;
                case "checkpoint-cost-interval-ms":
                    s.checkpointCostIntervalMs = Long.parseLong(v);
                    break;
                case "sink-devices":
                    s.sinkDevices = ints(v);
                    break;
                case "sql":
                    s.sql = Boolean.parseBoolean(v);
                    break;
                case "work-dir":
                    s.workDir = Path.of(v);
                    break;
                case "report":
                    s.report = Path.of(v);
                    break;
                case "reconciler-report":
                    s.reconcilerReport = Path.of(v);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option --" + k + ". " + usage());
            }
        });
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

    private static List<Integer> ints(String v) {
        List<Integer> out = new ArrayList<>();
        for (String p : v.split(",")) {
            out.add(Integer.parseInt(p.trim().replace("_", "")));
        }
        return out;
    }

    static String usage() {
        return "Options: --events N --devices N --events-per-window N --partitions N --parallelism N"
                + " --repeats N --warmups N --checkpoint-interval-ms MS --checkpoint-devices N --checkpoint-events N"
                + " --checkpoints N"
                + " --checkpoint-cost-interval-ms MS --sink-devices N[,N] --sql true|false"
                + " --work-dir DIR --report FILE --reconciler-report FILE";
    }

    @Override
    public String toString() {
        return String.format(
                "%,d events (%,d devices × %d events × %d windows), %d partitions, parallelism %d, %d repeats after %d warm-up(s),"
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
                sinkDevices);
    }
}
