package io.lineflow.reconciler.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.checks.HealthEvaluator;
import io.lineflow.reconciler.checks.RuntimeChecks;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.HttpFlinkRestClient;
import io.lineflow.reconciler.observe.TestingKafkaObserver;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The reconciler against the REST API of real Flink 1.20 MiniClusters: healthy, checkpointing
 * off, checkpoints in heap, checkpoints failing, and a source that reads everything twice.
 */
class RealFlinkRestTest {

    private static final double RATE = 40; // records/s the fake topic receives
    private static MiniCluster withDir;
    private static MiniCluster heapOnly;
    private static final List<JobID> running = new ArrayList<>();
    private final HttpFlinkRestClient rest = new HttpFlinkRestClient(Duration.ofSeconds(5));
    private final org.apache.flink.configuration.Configuration options =
            ReconcilerOptions.fromMap(Map.of(ReconcilerOptions.DUPLICATE_MIN_SPAN.key(), "10 s"));
    private final HealthEvaluator evaluator = new HealthEvaluator(options, Clock.systemUTC());

    @BeforeAll
    static void startClusters() throws Exception {
        Path dir = Files.createDirectories(Path.of("target/flink-it/checkpoints")).toAbsolutePath();
        Configuration a = clusterConf();
        a.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
        withDir = start(a);
        heapOnly = start(clusterConf());
    }

    private static Configuration clusterConf() {
        Configuration c = new Configuration();
        c.set(RestOptions.BIND_PORT, "0");
        c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofMillis(500));
        return c;
    }

    private static MiniCluster start(Configuration c) throws Exception {
        MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(c).setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build());
        mc.start();
        return mc;
    }

    @AfterEach
    void cancelJobs() throws Exception {
        for (JobID id : running) {
            for (MiniCluster mc : List.of(withDir, heapOnly)) {
                try {
                    mc.cancelJob(id).get();
                } catch (Exception ignored) {
                    // the job runs on the other cluster
                }
            }
        }
        running.clear();
        Thread.sleep(500);
    }

    @AfterAll
    static void stopClusters() throws Exception {
        withDir.close();
        heapOnly.close();
    }

    /** Emits 0, 1, 2, … at a fixed total rate; if {@code doubled}, every subtask emits every record. */
    static final class PacedSource extends RichParallelSourceFunction<Long> {
        private final double perSecond;
        private final boolean doubled;
        private volatile boolean runningFlag = true;

        PacedSource(double perSecond, boolean doubled) {
            this.perSecond = perSecond;
            this.doubled = doubled;
        }

        @Override
        public void run(SourceContext<Long> ctx) throws Exception {
            int idx = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            int n = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            long start = System.currentTimeMillis();
            long next = 0;
            while (runningFlag) {
                long due = (long) ((System.currentTimeMillis() - start) / 1000.0 * perSecond);
                for (; next < due; next++) {
                    if (doubled || next % n == idx) {
                        synchronized (ctx.getCheckpointLock()) {
                            ctx.collect(next);
                        }
                    }
                }
                Thread.sleep(5);
            }
        }

        @Override
        public void cancel() {
            runningFlag = false;
        }
    }

    /** A map whose snapshots take longer than the checkpoint timeout. */
    static final class SlowSnapshot implements MapFunction<Long, Long>, CheckpointedFunction {
        @Override
        public Long map(Long v) {
            return v;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            Thread.sleep(1_500);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}
    }

    private static JobGraph job(boolean doubled, long checkpointMillis, long timeoutMillis, int tolerable, boolean slow) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
            env.getCheckpointConfig().setCheckpointTimeout(timeoutMillis);
            env.getCheckpointConfig().setTolerableCheckpointFailureNumber(tolerable);
        }
        var src = env.addSource(new PacedSource(RATE, doubled)).name("kafka-source").uid("kafka-source").setParallelism(2);
        var mapped = slow ? src.map(new SlowSnapshot()).name("parse").uid("parse") : src.map(v -> v).name("parse").uid("parse");
        mapped.addSink(new DiscardingSink<>()).name("sink").uid("sink");
        return env.getStreamGraph().getJobGraph();
    }

    private static String submit(MiniCluster mc, JobGraph jg) throws Exception {
        mc.submitJob(jg).get();
        running.add(jg.getJobID());
        return mc.getRestAddress().get().toString();
    }

    private FlinkObservation await(String url, Predicate<FlinkObservation> ready, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        FlinkObservation o = rest.observe(url, "kafka-source", "device-events");
        while (!ready.test(o) && System.nanoTime() < deadline) {
            Thread.sleep(250);
            o = rest.observe(url, "kafka-source", "device-events");
        }
        return o;
    }

    private static SpecObservation noSpec(String url) {
        return new SpecObservation(null, url, Map.of(), Map.of(), true, null, null, 1, List.of(), List.of());
    }

    private HealthResult evaluate(String url, FlinkObservation o) {
        return evaluator.evaluateRuntimeOnly(new Observation(java.time.Instant.now(), noSpec(url), null, o, null, List.of()));
    }

    @Test
    void healthyJobWithDurableCheckpointsHasNoRuntimeFinding() throws Exception {
        String url = submit(withDir, job(false, 500, 10_000, 3, false));
        FlinkObservation o = await(url, x -> x.ok() && x.job() != null && x.job().checkpoints() != null
                && x.job().checkpoints().completed() >= 2 && x.job().source() != null && x.job().source().recordsOutPerSecond() != null
                && x.job().source().recordsOutPerSecond() > 0, Duration.ofSeconds(40));
        assertThat(o.error()).isNull();
        assertThat(o.job().state()).isEqualTo("RUNNING");
        assertThat(o.job().numRestarts()).isZero();
        assertThat(o.job().checkpoints().enabled()).isTrue();
        assertThat(o.job().checkpoints().interval()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.job().checkpoints().latestCompletedExternalPath()).startsWith("file:");
        assertThat(o.job().source().vertexName()).contains("kafka-source");
        assertThat(o.job().source().recordsOutPerSecond()).as("the source operator's own rate metric was found").isPositive();
        assertThat(evaluate(url, o).findings()).isEmpty();
    }

    @Test
    void jobWithoutCheckpointingIsReportedAsCheckpointingDisabled() throws Exception {
        String url = submit(withDir, job(false, 0, 0, 0, false));
        FlinkObservation o = await(url, x -> x.ok() && x.job() != null && "RUNNING".equals(x.job().state()), Duration.ofSeconds(30));
        assertThat(o.job().checkpoints().enabled()).isFalse();
        assertThat(evaluate(url, o).codes()).containsExactly(FindingCode.CHECKPOINTING_DISABLED);
    }

    @Test
    void checkpointsKeptInJobManagerHeapAreReportedAsNotExternal() throws Exception {
        String url = submit(heapOnly, job(false, 500, 10_000, 3, false));
        FlinkObservation o = await(url, x -> x.ok() && x.job() != null && x.job().checkpoints() != null
                && x.job().checkpoints().latestCompletedId() != null, Duration.ofSeconds(40));
        assertThat(evaluate(url, o).codes()).containsExactly(FindingCode.CHECKPOINT_NOT_EXTERNAL);
    }

    @Test
    void checkpointsThatTimeOutAreReportedAsFailuresAndStale() throws Exception {
        // 500 ms interval, 200 ms timeout, 2 tolerable: stale after max(500, 200) ms × 4 = 2 s.
        String url = submit(withDir, job(false, 500, 200, 2, true));
        // Three failures in a row fail the job over; observe it while it runs between restarts.
        FlinkObservation o = await(url, x -> x.ok() && x.job() != null && x.job().checkpoints() != null
                && "RUNNING".equals(x.job().state())
                && x.job().checkpoints().failed() >= 1 && x.job().startTime() != null
                && Duration.between(x.job().startTime(), java.time.Instant.now()).toSeconds() >= 4, Duration.ofSeconds(40));
        HealthResult r = evaluate(url, o);
        assertThat(r.codes()).contains(FindingCode.CHECKPOINT_FAILURES, FindingCode.CHECKPOINT_STALE);
        assertThat(r.find(FindingCode.CHECKPOINT_FAILURES).get().evidence().get("latestFailureMessage")).isNotNull();
    }

    @Test
    void sourceReadingEverythingTwiceIsDuplicateConsumptionWithRatioNearTwo() throws Exception {
        String doubledUrl = submit(withDir, job(true, 1_000, 10_000, 3, false));
        String plainUrl = submit(heapOnly, job(false, 1_000, 10_000, 3, false));
        Clock clock = Clock.systemUTC();
        TestingKafkaObserver topic = new TestingKafkaObserver(clock, RATE, 0, Duration.ofDays(7));
        // The source's numRecordsOutPerSecond is a 60-second meter: let it fill with running time
        // only (a slow start on a loaded machine would otherwise dilute it), sampling the topic's
        // end offsets 15 s before the end for the produce rate.
        await(doubledUrl, x -> x.ok() && x.job() != null && "RUNNING".equals(x.job().state()), Duration.ofSeconds(60));
        await(plainUrl, x -> x.ok() && x.job() != null && "RUNNING".equals(x.job().state()), Duration.ofSeconds(60));
        Thread.sleep(62_000);
        KafkaObservation k0 = topic.observe("kafka:9092", "device-events", "lineflow");
        FlinkObservation d0 = rest.observe(doubledUrl, "kafka-source", "device-events");
        FlinkObservation p0 = rest.observe(plainUrl, "kafka-source", "device-events");
        Thread.sleep(15_500);
        KafkaObservation k1 = topic.observe("kafka:9092", "device-events", "lineflow");
        FlinkObservation d1 = rest.observe(doubledUrl, "kafka-source", "device-events");
        FlinkObservation p1 = rest.observe(plainUrl, "kafka-source", "device-events");

        Observation doubled = new Observation(k1.observedAt(), noSpec(doubledUrl), null, d1, k1,
                List.of(Sample.of(new Observation(k0.observedAt(), noSpec(doubledUrl), null, d0, k0, List.of()))));
        Observation plain = new Observation(k1.observedAt(), noSpec(plainUrl), null, p1, k1,
                List.of(Sample.of(new Observation(k0.observedAt(), noSpec(plainUrl), null, p0, k0, List.of()))));

        double doubledRatio = RuntimeChecks.rates(doubled, options).orElseThrow().ratio();
        double plainRatio = RuntimeChecks.rates(plain, options).orElseThrow().ratio();
        System.out.printf("duplicate ratio: doubled source %.2f, plain source %.2f%n", doubledRatio, plainRatio);
        assertThat(doubledRatio).isBetween(1.7, 2.3);
        assertThat(plainRatio).isBetween(0.8, 1.2);
        assertThat(evaluator.evaluateRuntimeOnly(doubled).codes()).contains(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(evaluator.evaluateRuntimeOnly(plain).codes()).doesNotContain(FindingCode.DUPLICATE_CONSUMPTION);
    }
}
