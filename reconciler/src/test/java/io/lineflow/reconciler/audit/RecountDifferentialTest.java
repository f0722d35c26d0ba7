package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.LineflowJob;
import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.reconciler.cli.AuditCommand;
import io.lineflow.rules.Windows;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.testing.TestServices;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;

/**
 * The job and the audit's recount must agree on every rule: the same random input goes through
 * the real job (MiniCluster, real Kafka, real PostgreSQL) and through {@code audit}, which must
 * find the job's table equal to its recount.
 *
 * <p>The input is produced in phases with pauses, so that what depends on timing in the job is
 * fixed by the input: a pause lets the watermark settle; within a phase no
 * partition's watermark crosses a window end or a window's end plus the allowed lateness, except
 * through the last event of the phase (the "pacer"), so whether a window has fired or is past its
 * lateness when an event arrives does not depend on how the job interleaves partitions. The pacer
 * may pass several window ends in one step, as a catch-up does; in the last phase it always passes
 * a stopped device's return and the silent window before it. Set {@code -Drecount.seed=N} to replay
 * an input.
 */
class RecountDifferentialTest {
    private static final Path WORK = Path.of("target", "it", "recount-differential");
    private static final String TOPIC = "device-events";
    private static final long W = Duration.ofMinutes(5).toMillis();
    private static final long LATENESS = Duration.ofMinutes(1).toMillis();
    private static final long OOO = Duration.ofSeconds(10).toMillis();
    /** Between phases: time for the watermark to reach every operator. */
    private static final long PAUSE = Duration.ofSeconds(2).toMillis();

    private static final int MAX_BYTES = 2048;
    private static final int PARTITIONS = 2;
    private static final int DEVICES = 6;
    private static final int PHASES = 12;

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    private static MiniCluster flink;

    @BeforeAll
    static void start() throws Exception {
        Configuration c = new Configuration();
        c.set(RestOptions.BIND_PORT, "0");
        flink = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(c)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build());
        flink.start();
    }

    @AfterAll
    static void stop() throws Exception {
        flink.close();
    }

    private static Configuration jobConfig() {
        return JobConfig.builder()
                .kafka(SERVICES.kafka().bootstrapServers(), TOPIC, "differential")
                .jdbc(SERVICES.postgres().jdbcUrl(), SERVICES.postgres().user())
                .set(LineflowOptions.SINK_BATCH_INTERVAL, Duration.ofMillis(200))
                .set(LineflowOptions.WINDOW_SIZE, Duration.ofMillis(W))
                .set(LineflowOptions.ALLOWED_LATENESS, Duration.ofMillis(LATENESS))
                .set(LineflowOptions.OUT_OF_ORDERNESS, Duration.ofMillis(OOO))
                // Longer than the whole test: no partition is ever idle, so the watermark is the minimum.
                .set(LineflowOptions.IDLENESS, Duration.ofMinutes(30))
                // The quiet-window rows (processing time) are overwritten by the watermark's; longer
                // than the test, so that only the watermark decides, as in the recount.
                .set(LineflowOptions.IDLE_EMIT, Duration.ofMinutes(30))
                .set(LineflowOptions.MAX_EVENT_SIZE, new MemorySize(MAX_BYTES))
                .checkpoints(Duration.ofSeconds(1), WORK.resolve("checkpoints"))
                .load();
    }

    /** The audit's options for the job's settings above. */
    private static String[] auditArgs() {
        return new String[] {
            "--bootstrap",
            SERVICES.kafka().bootstrapServers(),
            "--jdbc-url",
            SERVICES.postgres().jdbcUrl(),
            "--jdbc-user",
            SERVICES.postgres().user(),
            "--topic",
            TOPIC,
            "--window",
            W + "ms",
            "--lateness",
            LATENESS + "ms",
            "--out-of-orderness",
            OOO + "ms",
            "--max-bytes",
            Integer.toString(MAX_BYTES)
        };
    }

    @Test
    void theJobAndTheRecountWriteTheSameTableForARandomInput() throws Exception {
        long seed = Long.getLong("recount.seed", System.nanoTime());
        System.out.println("RecountDifferentialTest seed " + seed + " (replay with -Drecount.seed=" + seed + ")");
        Generator input = new Generator(new Random(seed), System.currentTimeMillis());
        SERVICES.kafka().createTopic(TOPIC, PARTITIONS);
        Configuration conf = jobConfig();
        Schema.migrate(conf);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1_000);
        LineflowJob.attach(env, conf, LineflowJob.kafkaSource(conf).build());
        JobGraph graph = env.getStreamGraph().getJobGraph();
        flink.submitJob(graph).get();
        JobID id = graph.getJobID();
        awaitRunning(id);

        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SERVICES.kafka().bootstrapServers(),
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                        1,
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int phase = 0; phase < PHASES; phase++) {
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (ProducerRecord<byte[], byte[]> r : input.phase(phase)) {
                    sent.add(producer.send(r));
                }
                producer.flush();
                List<long[]> markers = new ArrayList<>();
                for (int i = sent.size() - PARTITIONS; i < sent.size(); i++) {
                    RecordMetadata m = sent.get(i).get();
                    markers.add(new long[] {m.partition(), m.offset()});
                }
                // The phase's last record on each partition is a rejected marker: once the job has
                // stored all of them, it has read the phase. Then the pause.
                awaitRejected(markers);
                Thread.sleep(PAUSE);
            }
        }
        assertThat(flink.getJobStatus(id).get())
                .as("no record may fail the job")
                .isEqualTo(JobStatus.RUNNING);
        System.out.println("RecountDifferentialTest input: " + input.stats);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = AuditCommand.run(auditArgs(), new PrintStream(out, true, StandardCharsets.UTF_8));
        String report = out.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        flink.cancelJob(id).get();

        assertThat(exit)
                .as("audit of the job's table against its recount:%n%s", report)
                .isZero();
        assertThat(report).contains("the table matches the topic");
        // The input exercised what this test is about (a kind that never came has no entry).
        assertThat(input.stats)
                .containsKeys(
                        "bad record",
                        "id reused for another event",
                        "late within the lateness",
                        "line change",
                        "oversized",
                        "retry after its window is final",
                        "retry while its window is open",
                        "stop event",
                        "too late");
        assertThat(windowsRecounted(report)).isGreaterThanOrEqualTo(DEVICES * 3);
        assertThat(silentRows()).as("silent stopped windows in the table").isGreaterThanOrEqualTo(3);
    }

    private static long silentRows() throws Exception {
        try (Connection c = SERVICES.postgres().connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM device_window_stats WHERE events_seen = 0 AND downtime_seconds = ?"); ) {
            s.setLong(1, W / 1000);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static int windowsRecounted(String report) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(\\d+) rows matched").matcher(report);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static void awaitRunning(JobID id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (flink.getJobStatus(id).get() != JobStatus.RUNNING || !allTasksRunning(id)) {
            assertThat(System.nanoTime()).as("job running within 2 minutes").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static boolean allTasksRunning(JobID id) throws Exception {
        for (var v : flink.getExecutionGraph(id).get().getAllExecutionVertices()) {
            if (v.getExecutionState() != org.apache.flink.runtime.execution.ExecutionState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    private static void awaitRejected(List<long[]> markers) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        try (Connection c = SERVICES.postgres().connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM rejected_events WHERE topic = ? AND kafka_partition = ? AND kafka_offset = ?")) {
            for (long[] m : markers) {
                while (true) {
                    s.setString(1, TOPIC);
                    s.setInt(2, (int) m[0]);
                    s.setLong(3, m[1]);
                    try (ResultSet rs = s.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) == 1) {
                            break;
                        }
                    }
                    assertThat(System.nanoTime())
                            .as("marker %s read by the job within 2 minutes", Arrays.toString(m))
                            .isLessThan(deadline);
                    Thread.sleep(100);
                }
            }
        }
    }

    /**
     * Random input in phases (see the class comment): on-time, late-within-lateness and too-late
     * events, stops across windows, devices that change line, producer retries while their window
     * is open and once it is final, ids reused for another event, and bad records of every kind.
     */
    static final class Generator {
        private final Random rnd;
        private final long wallClock;
        private final long t0;
        private final long[] maxTs = new long[PARTITIONS];
        private final String[] lineOf = new String[DEVICES];
        /** Valid events produced so far, per device: phase, value, id and time. */
        private final List<List<Object[]>> sentByDevice = new ArrayList<>();

        final Map<String, Integer> stats = new java.util.TreeMap<>();
        private int seq;

        Generator(Random rnd, long wallClock) {
            this.rnd = rnd;
            this.wallClock = wallClock;
            // Hours behind the wall clock, so that only the deliberate future events are "future".
            this.t0 = wallClock - Duration.ofHours(6).toMillis() - Math.floorMod(wallClock, W);
            Arrays.fill(maxTs, Long.MIN_VALUE);
            for (int d = 0; d < DEVICES; d++) {
                lineOf[d] = "L" + (d % 2 + 1);
                sentByDevice.add(new ArrayList<>());
            }
        }

        private void count(String what) {
            stats.merge(what, 1, Integer::sum);
        }

        /** The smallest window edge (an end - 1, or an end - 1 + lateness) above {@code wm}. */
        private long nextEdge(long wm) {
            long edge = Long.MAX_VALUE;
            for (long end = t0 + W; end <= wm + 2 * W + LATENESS; end += W) {
                for (long e : new long[] {end - 1, end - 1 + LATENESS}) {
                    if (e > wm && e < edge) {
                        edge = e;
                    }
                }
            }
            return edge;
        }

        List<ProducerRecord<byte[], byte[]>> phase(int phase) {
            long lo;
            long hi;
            if (phase == 0) {
                // Nothing fired yet: keep every partition's watermark below the first window's end.
                lo = t0;
                hi = t0 + W - 2 * OOO;
            } else {
                long wm = Arrays.stream(maxTs).min().getAsLong() - OOO - 1;
                lo = Math.max(t0, wm - Duration.ofMinutes(15).toMillis());
                hi = nextEdge(wm) + OOO; // a partition's watermark stays below that edge
            }
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            if (phase == 0) {
                // One more device stops in the first phase and sends nothing until the last: the
                // windows in between are silent and fully down.
                records.add(quiet(phase, "DOWNTIME_START", t0 + 60_000));
            }
            int n = 40 + rnd.nextInt(40);
            for (int i = 0; i < n; i++) {
                int d = rnd.nextInt(DEVICES);
                int kind = rnd.nextInt(100);
                if (kind < 55) {
                    records.add(
                            valid(phase, d, newId(), lo + (long) (rnd.nextDouble() * (hi - lo)), randomType(), true));
                } else if (kind < 67 && !sentByDevice.get(d).isEmpty()) {
                    Object[] earlier = sentByDevice
                            .get(d)
                            .get(rnd.nextInt(sentByDevice.get(d).size()));
                    long wm = Arrays.stream(maxTs).min().getAsLong() - OOO - 1;
                    count(
                            windowEnd((long) earlier[3]) - 1 + LATENESS <= wm
                                    ? "retry after its window is final"
                                    : "retry while its window is open");
                    records.add(record(d, (byte[]) earlier[1]));
                } else if (kind < 75 && !sentByDevice.get(d).isEmpty()) {
                    Object[] earlier = sentByDevice
                            .get(d)
                            .get(rnd.nextInt(sentByDevice.get(d).size()));
                    count("id reused for another event");
                    records.add(valid(
                            phase,
                            d,
                            (String) earlier[2],
                            lo + (long) (rnd.nextDouble() * (hi - lo)),
                            randomType(),
                            true));
                } else {
                    records.add(bad(d, lo));
                }
            }
            long jump = Duration.ofSeconds(30 + rnd.nextInt(870)).toMillis();
            if (phase == PHASES - 1) {
                // The quiet device comes back just after the end of the window that holds hi: that
                // window is silent and still open, and the pacer (the last record of partition 0
                // besides) passes its end and the return's window end in one step.
                records.add(quiet(phase, "DOWNTIME_END", windowEnd(hi) + 5_000));
                jump = W + Duration.ofSeconds(30 + rnd.nextInt(210)).toMillis();
            }
            // Each partition's pacer moves its watermark on to the same point, beyond every
            // partition's, possibly over several window ends, then a marker ends the phase.
            long highest = Math.max(t0, Arrays.stream(maxTs).max().getAsLong());
            long pacerTs = highest + jump;
            if (phase % 3 == 1) {
                // The watermark lands halfway into a window's allowed lateness: the next phase has
                // events late but within it, whatever the random steps.
                pacerTs = windowEnd(pacerTs) + LATENESS / 2 + OOO;
            }
            for (int p = 0; p < PARTITIONS; p++) {
                int d = p + PARTITIONS * rnd.nextInt(DEVICES / PARTITIONS);
                records.add(valid(phase, d, newId(), pacerTs, "PIECE_PRODUCED", false));
            }
            for (int p = 0; p < PARTITIONS; p++) {
                records.add(new ProducerRecord<>(TOPIC, p, bytes("marker"), bytes("marker of phase " + phase)));
            }
            return records;
        }

        private ProducerRecord<byte[], byte[]> quiet(int phase, String type, long ts) {
            maxTs[0] = Math.max(maxTs[0], ts);
            return new ProducerRecord<>(
                    TOPIC,
                    0,
                    bytes("quiet"),
                    bytes(String.format(
                            "{\"eventId\":\"q%d\",\"deviceId\":\"quiet\",\"lineId\":\"L9\",\"type\":\"%s\",\"ts\":%d}",
                            phase, type, ts)));
        }

        private String newId() {
            return "e" + (seq++);
        }

        private String randomType() {
            int t = rnd.nextInt(10);
            return t < 6 ? "PIECE_PRODUCED" : t < 8 ? "DOWNTIME_START" : "DOWNTIME_END";
        }

        private ProducerRecord<byte[], byte[]> valid(
                int phase, int d, String id, long ts, String type, boolean mayBeLarge) {
            if (rnd.nextInt(10) == 0) {
                lineOf[d] = "L" + (1 + rnd.nextInt(4));
                count("line change");
            }
            long wm = maxTs[d % PARTITIONS] - OOO - 1;
            if (LATENESS + windowEnd(ts) - 1 <= wm) {
                count("too late");
            } else if (windowEnd(ts) - 1 <= wm) {
                count("late within the lateness");
            }
            if (!type.equals("PIECE_PRODUCED")) {
                count("stop event");
            }
            String tsText = rnd.nextBoolean() ? Long.toString(ts) : "\"" + Instant.ofEpochMilli(ts) + "\"";
            String count = rnd.nextInt(4) == 0 ? "" : ",\"count\":" + rnd.nextInt(4);
            // Some events carry a note that makes them large; some too large.
            String note = mayBeLarge && rnd.nextInt(8) == 0
                    ? ",\"note\":\"" + "x".repeat(1_700 + rnd.nextInt(500)) + "\""
                    : "";
            byte[] value = bytes(String.format(
                    "{\"eventId\":\"%s\",\"deviceId\":\"d%d\",\"lineId\":\"%s\",\"type\":\"%s\",\"ts\":%s%s%s}",
                    id, d, lineOf[d], type, tsText, count, note));
            if (value.length > MAX_BYTES) {
                count("oversized");
                return record(d, value);
            }
            maxTs[d % PARTITIONS] = Math.max(maxTs[d % PARTITIONS], ts);
            sentByDevice.get(d).add(new Object[] {phase, value, id, ts});
            return record(d, value);
        }

        private static long windowEnd(long ts) {
            return Windows.start(ts, W) + W;
        }

        private ProducerRecord<byte[], byte[]> bad(int d, long ts) {
            String dev = "d" + d;
            String[] kinds = {
                "{\"eventId\":\"x\",\"deviceId\":\"" + dev,
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev + "\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts
                        + "}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"EXPLODED\",\"ts\":" + ts + "}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + ",\"count\":-2}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + ",\"count\":1.5}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + ",\"count\":4294967296}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":\"yesterday\"}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + "} trailing",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":"
                        + (wallClock + Duration.ofHours(3).toMillis()) + "}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":\"1990-01-01T00:00:00Z\"}",
                "{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                        + "\",\"lineId\":\"L\\u0000\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + "}",
                "{\"eventId\":\"\",\"deviceId\":\"" + dev + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":"
                        + ts + "}",
                "[1,2,3]",
            };
            int k = rnd.nextInt(kinds.length + 2);
            count("bad record");
            if (k == kinds.length) {
                return new ProducerRecord<>(TOPIC, d % PARTITIONS, null, bytes(kinds[1]));
            }
            if (k == kinds.length + 1) {
                // Key and deviceId differ.
                return new ProducerRecord<>(
                        TOPIC,
                        d % PARTITIONS,
                        bytes("d" + ((d + PARTITIONS) % DEVICES) + "x"),
                        bytes("{\"eventId\":\"" + newId() + "\",\"deviceId\":\"" + dev
                                + "\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":" + ts + "}"));
            }
            return record(d, bytes(kinds[k]));
        }

        private static ProducerRecord<byte[], byte[]> record(int d, byte[] value) {
            return new ProducerRecord<>(TOPIC, d % PARTITIONS, bytes("d" + d), value);
        }

        private static byte[] bytes(String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
    }
}
