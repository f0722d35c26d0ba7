package io.lineflow.reconciler.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.checks.DuplicateConsumptionCheck;
import io.lineflow.reconciler.checks.HealthEvaluator;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.AdminKafkaObserver;
import io.lineflow.reconciler.observe.HttpFlinkRestClient;
import io.lineflow.testing.Await;
import io.lineflow.testing.EmbeddedKafka;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * The reconciler against the REST API of real Flink MiniClusters (1.20, and 2.2 in its pass) whose
 * jobs read a real Kafka topic with Flink's KafkaSource: healthy, checkpointing off, checkpoints in
 * heap, checkpoints failing, and two sources reading the same topic. The duplicate ratio on real
 * rates, shape by shape, is {@link DetectorZooTest}'s.
 */
class RealFlinkRestTest {

    private static final double RATE = 40; // records/s produced into the topic
    private static final String TOPIC = "device-events";
    private static final int PARTITIONS = 4;
    private static final Path WORK = Path.of("target", "it", "real-flink-rest");
    private static EmbeddedKafka kafka;
    private static PacedProducer producer;
    private static MiniCluster withDir;
    private static MiniCluster heapOnly;
    /**
     * A cluster of its own for the job whose source emits every record twice: the REST client
     * observes one job per cluster (the newest RUNNING one), so two jobs sharing a cluster would
     * be one observation under two names.
     */
    private static MiniCluster doubling;
    /** The jobs the current test submitted, each with the cluster it runs on. */
    private static final Map<JobID, MiniCluster> running = new LinkedHashMap<>();
    // The option's default against this plaintext broker: what an unconfigured reconciler does.
    private final AdminKafkaObserver topic = new AdminKafkaObserver(
            Duration.ofSeconds(10), ReconcilerOptions.KAFKA_SECURITY_PROTOCOL.defaultValue(), Clock.systemUTC());
    private final HttpFlinkRestClient rest = new HttpFlinkRestClient(Duration.ofSeconds(5));
    private final org.apache.flink.configuration.Configuration options =
            ReconcilerOptions.fromMap(Map.of(ReconcilerOptions.DUPLICATE_MIN_SPAN.key(), "10 s"));
    private final HealthEvaluator evaluator = new HealthEvaluator(options, Clock.systemUTC());

    @BeforeAll
    static void startClusters() throws Exception {
        kafka = EmbeddedKafka.start(WORK.resolve("kafka-" + System.nanoTime()));
        kafka.createTopic(TOPIC, PARTITIONS);
        producer = PacedProducer.start(kafka.bootstrapServers(), TOPIC, PARTITIONS, RATE);
        Path dir =
                Files.createDirectories(Path.of("target/flink-it/checkpoints")).toAbsolutePath();
        Configuration a = clusterConf();
        a.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        withDir = start(a);
        heapOnly = start(clusterConf());
        doubling = start(clusterConf());
    }

    private static Configuration clusterConf() {
        Configuration c = new Configuration();
        c.set(RestOptions.BIND_PORT, "0");
        c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofMillis(500));
        return c;
    }

    private static MiniCluster start(Configuration c) throws Exception {
        MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(c)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(4)
                .build());
        mc.start();
        return mc;
    }

    /**
     * Cancels the test's jobs and waits until each has ended: cancelJob only triggers the
     * cancellation, and the next test's jobs need the slots and the topic's readers gone.
     */
    @AfterEach
    void cancelJobs() throws Exception {
        for (Map.Entry<JobID, MiniCluster> job : running.entrySet()) {
            try {
                job.getValue().cancelJob(job.getKey()).get();
            } catch (Exception ignored) {
                // it had already ended (a job failing over too often fails)
            }
        }
        for (Map.Entry<JobID, MiniCluster> job : running.entrySet()) {
            Await.until(
                    "job " + job.getKey() + " to reach a terminal state after its cancellation",
                    Duration.ofSeconds(60),
                    e -> false,
                    () -> job.getValue().getJobStatus(job.getKey()).get().isGloballyTerminalState());
        }
        running.clear();
    }

    @AfterAll
    static void stopClusters() throws Exception {
        withDir.close();
        heapOnly.close();
        doubling.close();
        producer.close();
        kafka.close();
    }

    /** Hands each Kafka record on {@code times} times: a source that counts every record twice. */
    static final class EmitEachRecord implements KafkaRecordDeserializationSchema<Long> {
        private final int times;

        EmitEachRecord(int times) {
            this.times = times;
        }

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Long> out) {
            for (int i = 0; i < times; i++) {
                out.collect(record.offset());
            }
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    /** How the job reads the topic. */
    enum Reading {
        /** One KafkaSource: each record once. */
        ONCE,
        /** One KafkaSource whose deserializer emits each record twice (readers look normal). */
        EVERY_RECORD_TWICE,
        /** Two KafkaSources on the same topic: every partition read by two readers. */
        TWO_SOURCES
    }

    private static KafkaSource<Long> kafkaSource(String clientIdPrefix, int times) {
        return KafkaSource.<Long>builder()
                .setBootstrapServers(kafka.bootstrapServers())
                .setTopics(TOPIC)
                .setGroupId("lineflow")
                .setClientIdPrefix(clientIdPrefix)
                // From the end: a catch-up burst at the start would inflate the 60-second rate meter.
                .setStartingOffsets(OffsetsInitializer.latest())
                .setDeserializer(new EmitEachRecord(times))
                .build();
    }

    /** A map whose snapshots take longer than the checkpoint timeout. */
    static final class SlowSnapshot implements MapFunction<Long, Long>, CheckpointedFunction {
        @Override
        public Long map(Long v) {
            return v;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            // Not a wait: the behaviour under test, a snapshot that outlasts the job's 200 ms
            // checkpoint timeout (by far, so a slow machine cannot make it finish in time).
            Thread.sleep(1_500);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}
    }

    private static JobGraph job(
            Reading reading, long checkpointMillis, long timeoutMillis, int tolerable, boolean slow) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
            env.getCheckpointConfig().setCheckpointTimeout(timeoutMillis);
            env.getCheckpointConfig().setTolerableCheckpointFailureNumber(tolerable);
        }
        DataStream<Long> src = env.fromSource(
                        kafkaSource("lineflow-" + reading, reading == Reading.EVERY_RECORD_TWICE ? 2 : 1),
                        WatermarkStrategy.noWatermarks(),
                        "kafka-source")
                .uid("kafka-source")
                .setParallelism(2);
        if (reading == Reading.TWO_SOURCES) {
            // A second source on the same topic, under a name that says nothing about Kafka.
            src = src.union(env.fromSource(
                            kafkaSource("replay-" + reading, 1), WatermarkStrategy.noWatermarks(), "replayed-events")
                    .uid("replayed-events")
                    .setParallelism(2));
        }
        var mapped = slow
                ? src.map(new SlowSnapshot()).name("parse").uid("parse")
                : src.map(v -> v).name("parse").uid("parse");
        mapped.sinkTo(new DiscardingSink<>()).name("sink").uid("sink");
        return env.getStreamGraph().getJobGraph();
    }

    private static String submit(MiniCluster mc, JobGraph jg) throws Exception {
        mc.submitJob(jg).get();
        running.put(jg.getJobID(), mc);
        return mc.getRestAddress().get().toString();
    }

    /**
     * Observes the job at {@code url} until {@code ready} holds and returns that observation;
     * giving up after {@code max} names {@code what} and the last observation.
     */
    private FlinkObservation await(String url, String what, Predicate<FlinkObservation> ready, Duration max)
            throws InterruptedException {
        AtomicReference<FlinkObservation> last = new AtomicReference<>();
        try {
            Await.until(what, max, e -> false, () -> {
                last.set(rest.observe(url, TOPIC));
                return ready.test(last.get());
            });
        } catch (IllegalStateException e) {
            throw new AssertionError(e.getMessage() + "; last observation of " + url + ": " + last.get(), e);
        }
        return last.get();
    }

    private static SpecObservation noSpec(String url) {
        return SpecObservation.builder(null, url).build();
    }

    /** The runtime checks on {@code o} beside the topic as Kafka shows it, as the reconciler runs them. */
    private HealthResult evaluate(String url, FlinkObservation o) {
        KafkaObservation k = topic.observe(kafka.bootstrapServers(), List.of(TOPIC), "lineflow");
        return evaluator.evaluateRuntimeOnly(new Observation(k.observedAt(), noSpec(url), null, o, k, List.of()));
    }

    @Test
    void healthyJobWithDurableCheckpointsHasNoRuntimeFinding() throws Exception {
        String url = submit(withDir, job(Reading.ONCE, 500, 10_000, 3, false));
        FlinkObservation o = await(
                url,
                "two completed checkpoints, a positive source rate and all " + PARTITIONS + " splits assigned",
                x -> x.ok()
                        && x.job() != null
                        && x.job().checkpoints() != null
                        && x.job().checkpoints().completed() >= 2
                        && x.job().sourceRecordsOutPerSecond() != null
                        && x.job().sourceRecordsOutPerSecond() > 0
                        && x.job().assignedSplits() == PARTITIONS,
                Duration.ofSeconds(60));
        assertThat(o.error()).isNull();
        assertThat(o.job().state()).isEqualTo(JobStatus.RUNNING);
        assertThat(o.job().numRestarts()).isZero();
        assertThat(o.job().checkpoints().enabled()).isTrue();
        assertThat(o.job().checkpoints().interval()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.job().checkpoints().latestCompletedExternalPath()).startsWith("file:");
        assertThat(o.job().sources()).as("found by its readers' metrics").hasSize(1);
        assertThat(o.job().sources().get(0).vertexName()).contains("kafka-source");
        assertThat(o.job().sources().get(0).recordsOutPerSecond())
                .as("the source operator's own rate metric was found")
                .isPositive();
        assertThat(o.job().partitionsRead()).isEqualTo(TestUtils.partitions(TOPIC, 0, 1, 2, 3));
        assertThat(evaluate(url, o).findings()).isEmpty();
    }

    @Test
    void jobWithoutCheckpointingIsReportedAsCheckpointingDisabled() throws Exception {
        String url = submit(withDir, job(Reading.ONCE, 0, 0, 0, false));
        FlinkObservation o = await(
                url,
                "the job without checkpointing RUNNING",
                x -> x.ok() && x.job() != null && x.job().state() == JobStatus.RUNNING,
                Duration.ofSeconds(30));
        assertThat(o.job().checkpoints().enabled()).isFalse();
        assertThat(evaluate(url, o).codes()).containsExactly(FindingCode.CHECKPOINTING_DISABLED);
    }

    @Test
    void checkpointsKeptInJobManagerHeapAreReportedAsNotExternal() throws Exception {
        String url = submit(heapOnly, job(Reading.ONCE, 500, 10_000, 3, false));
        FlinkObservation o = await(
                url,
                "a completed checkpoint of the RUNNING job",
                x -> x.ok()
                        && x.job() != null
                        && x.job().state() == JobStatus.RUNNING
                        && x.job().checkpoints() != null
                        && x.job().checkpoints().latestCompletedId() != null,
                Duration.ofSeconds(40));
        assertThat(evaluate(url, o).codes()).containsExactly(FindingCode.CHECKPOINT_NOT_EXTERNAL);
    }

    @Test
    void checkpointsThatTimeOutAreReportedAsFailuresAndStale() throws Exception {
        // 500 ms interval, 200 ms timeout, 2 tolerable: stale after max(500, 200) ms × 4 = 2 s.
        String url = submit(withDir, job(Reading.ONCE, 500, 200, 2, true));
        // Three failures in a row fail the job over; observe it while it runs between restarts.
        FlinkObservation o = await(
                url,
                "a failed checkpoint while the job has been RUNNING for at least 4 s",
                x -> x.ok()
                        && x.job() != null
                        && x.job().checkpoints() != null
                        && x.job().state() == JobStatus.RUNNING
                        && x.job().checkpoints().failed() >= 1
                        && x.job().startTime() != null
                        && Duration.between(x.job().startTime(), java.time.Instant.now())
                                        .toSeconds()
                                >= 4,
                Duration.ofSeconds(40));
        HealthResult r = evaluate(url, o);
        assertThat(r.codes()).contains(FindingCode.CHECKPOINT_FAILURES, FindingCode.CHECKPOINT_STALE);
        assertThat(r.find(FindingCode.CHECKPOINT_FAILURES).get().evidence().get("latestFailureMessage"))
                .isNotNull();
    }

    @Test
    void twoKafkaSourcesOnTheSameTopicAreDuplicateConsumption() throws Exception {
        String url = submit(withDir, job(Reading.TWO_SOURCES, 1_000, 10_000, 3, false));
        String plainUrl = submit(heapOnly, job(Reading.ONCE, 1_000, 10_000, 3, false));
        // The readers register their per-partition metrics once their splits are assigned.
        FlinkObservation o = await(
                url,
                "DUPLICATE_CONSUMPTION for the job with two sources",
                x -> x.ok()
                        && x.job() != null
                        && x.job().state() == JobStatus.RUNNING
                        && duplicate(url, x).has(FindingCode.DUPLICATE_CONSUMPTION),
                Duration.ofSeconds(60));
        FlinkObservation plain = await(
                plainUrl,
                "all " + PARTITIONS + " splits of the plain job assigned",
                x -> x.ok()
                        && x.job() != null
                        && x.job().state() == JobStatus.RUNNING
                        && x.job().assignedSplits() == PARTITIONS,
                Duration.ofSeconds(60));
        HealthResult r = duplicate(url, o);
        assertThat(r.codes())
                .as("two KafkaSources read every partition of %s", TOPIC)
                .contains(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(r.find(FindingCode.DUPLICATE_CONSUMPTION).get().evidence())
                .containsEntry("assignedSplits", 2 * PARTITIONS)
                .containsEntry("topicPartitions", PARTITIONS)
                .containsEntry("kafkaSources", 2);
        assertThat(o.job().sources())
                .extracting(FlinkObservation.Source::vertexName)
                .anySatisfy(n -> assertThat(n).contains("kafka-source"))
                .anySatisfy(n -> assertThat(n).contains("replayed-events"));
        assertThat(plain.job().sources()).hasSize(1);
        assertThat(duplicate(plainUrl, plain).codes()).doesNotContain(FindingCode.DUPLICATE_CONSUMPTION);
    }

    private HealthResult duplicate(String url, FlinkObservation o) {
        KafkaObservation k = topic.observe(kafka.bootstrapServers(), List.of(TOPIC), "lineflow");
        return new DuplicateConsumptionCheck()
                .evaluate(
                        new Observation(k.observedAt(), noSpec(url), null, o, k, List.of()),
                        options,
                        Clock.systemUTC());
    }
}
