package io.lineflow.bench;

import io.lineflow.testing.CommandLines;
import io.lineflow.testing.ManagedProcess;

import org.apache.flink.runtime.util.EnvironmentInformation;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The rows of {@link LineRows} on the other Flink line, in a JVM of its own: one JVM cannot hold
 * two Flink lines. The bench's JVM starts it from that line's build of this module ({@code
 * classes} and {@code bench.classpath} in, e.g., {@code bench/target/flink-2.2}) with the bench
 * JVM's own options (heap, opens), and asks it for one run at a time, so that its runs interleave
 * with the bench's own rows, on the same topic and tables.
 *
 * <p>The protocol is a line each way. The child writes {@code other-line ready, Flink <version>}
 * once its MiniCluster is up; the bench writes a request {@code <n> <row>} to its standard input;
 * the child runs the row and writes {@code other-line answer <n> <seconds> <exact>}. The child ends
 * at the end of its input, so it ends with the bench's JVM however that ends.
 */
public final class OtherLine implements AutoCloseable {
    static final String READY = "other-line ready, Flink ";
    static final String ANSWER = "other-line answer ";

    /** The arguments of the child's {@link #main}. */
    private static final List<String> ARGS = List.of(
            "work-dir",
            "parallelism",
            "bootstrap",
            "topic",
            "jdbc-url",
            "user",
            "events",
            "rows",
            "checkpoint-interval-ms");

    /** Runs one row in the child's JVM. */
    interface Rows {
        LineRows.Run run(String row) throws Exception;
    }

    /** The Flink version the child runs. */
    public final String flinkVersion;

    private final ManagedProcess process;
    private final Duration patience;
    private int requests;

    /**
     * Takes over {@code process}, a child serving {@link #serve}, and waits up to {@code patience}
     * for it to be ready (and later for each answer; a child that dies ends a wait at once).
     *
     * @throws IllegalArgumentException if the child runs this JVM's own Flink version: its rows
     *     would compare a line with itself
     */
    OtherLine(ManagedProcess process, Duration patience) {
        this.process = process;
        this.patience = patience;
        try {
            flinkVersion = process.awaitLine(READY, patience).substring(READY.length());
            if (flinkVersion.equals(EnvironmentInformation.getVersion())) {
                throw new IllegalArgumentException("--other-line: " + process + " runs Flink " + flinkVersion
                        + ", the same as the bench's JVM; give it the other line's build"
                        + " (mvn -Dflink.line=2.2 -pl bench -am package writes bench/target/flink-2.2)");
            }
        } catch (RuntimeException e) {
            process.stop();
            throw e;
        }
    }

    /**
     * Starts the child from the build in {@code build} ({@link BenchSettings#otherLine}, checked
     * there), with this JVM's options; its output goes to {@code other-line.log} in {@code work}.
     */
    static OtherLine start(Path build, Path work, int parallelism, LineRows.Target t, Duration patience)
            throws Exception {
        String classpath = build.resolve("classes").toAbsolutePath() + ":"
                + Files.readString(build.resolve("bench.classpath")).trim();
        Path log = work.resolve("other-line.log");
        // The log is appended to: an earlier run's answers must not be read as this run's.
        Files.deleteIfExists(log);
        ManagedProcess child = ManagedProcess.java(
                "other-line",
                ManagementFactory.getRuntimeMXBean().getInputArguments(),
                classpath,
                OtherLine.class.getName(),
                List.of(
                        "--work-dir", work.resolve("other-line").toString(),
                        "--parallelism", String.valueOf(parallelism),
                        "--bootstrap", t.bootstrap(),
                        "--topic", t.topic(),
                        "--jdbc-url", t.jdbcUrl(),
                        "--user", t.user(),
                        "--events", String.valueOf(t.events()),
                        "--rows", String.valueOf(t.rows()),
                        "--checkpoint-interval-ms", String.valueOf(t.checkpointIntervalMs())),
                log);
        return new OtherLine(child, patience);
    }

    /** Runs {@code row} (one of {@link LineRows#ROWS}) in the child and returns its answer. */
    LineRows.Run run(String row) {
        int n = ++requests;
        process.send(n + " " + row);
        String prefix = ANSWER + n + " ";
        String[] answer =
                process.awaitLine(prefix, patience).substring(prefix.length()).split(" ");
        return new LineRows.Run(Double.parseDouble(answer[0]), Boolean.parseBoolean(answer[1]));
    }

    /** The child's log. */
    Path log() {
        return process.log;
    }

    /** Ends the child: the end of its input, then a stop if it is still there. */
    @Override
    public void close() {
        process.closeInput();
        process.stop();
    }

    /** The child: this line's MiniCluster and rows, serving the bench's requests until its input ends. */
    public static void main(String[] args) throws Exception {
        Map<String, String> a = CommandLines.parse(List.of(args), ARGS);
        LineRows.Target target = new LineRows.Target(
                a.get("bootstrap"),
                a.get("topic"),
                a.get("jdbc-url"),
                a.get("user"),
                Long.parseLong(a.get("events")),
                Long.parseLong(a.get("rows")),
                Long.parseLong(a.get("checkpoint-interval-ms")));
        try (FlinkRuns flink = new FlinkRuns(Integer.parseInt(a.get("parallelism")), Path.of(a.get("work-dir")))) {
            serve(EnvironmentInformation.getVersion(), new LineRows(flink, target)::run);
        }
        // Kafka's and Flink's non-daemon threads would keep the JVM alive.
        System.exit(0);
    }

    /**
     * The child's side of the protocol on its standard input and output: says it is ready, then
     * answers each request until the input ends.
     */
    static void serve(String flinkVersion, Rows rows) throws Exception {
        PrintStream out = System.out;
        out.println(READY + flinkVersion);
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String request = in.readLine(); request != null; request = in.readLine()) {
            String[] r = request.split(" ");
            LineRows.Run run = rows.run(r[1]);
            out.println(ANSWER + r[0] + " " + run.seconds() + " " + run.exact());
            out.flush();
        }
    }
}
