package io.lineflow.reconciler.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.checks.DuplicateConsumptionCheck;
import io.lineflow.reconciler.checks.DuplicateConsumptionCheck.Evidence;
import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.AdminKafkaObserver;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.HttpFlinkRestClient;
import io.lineflow.reconciler.observe.KafkaObserver;
import io.lineflow.testing.Await;
import io.lineflow.testing.EmbeddedKafka;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The duplicate detector on the shapes of job a platform's reconciler meets, each a real Flink job
 * on a MiniCluster of its own reading a real broker, observed through the real REST API and judged
 * by the real check as the reconciler judges it ({@link DeploymentObserver#observe}, then {@link
 * DuplicateConsumptionCheck}). Each shape has its expected verdict: flagged exactly where records
 * are read or emitted twice, rolled only where a restart ends it, otherwise quiet with a ratio near
 * 1. Two controls show that the quiet verdicts can fail: the reader of two topics judged against
 * one of them, and the dotted topic judged without Kafka's names, as the check did before.
 */
class DetectorZooTest {

    private static final Path WORK = Path.of("target", "it", "detector-zoo");
    private static final int PARTITIONS = 4;
    private static final Duration SPAN = Duration.ofSeconds(10);

    /** What the check must say of a shape. */
    enum Verdict {
        /** Judged, no DUPLICATE_CONSUMPTION, the ratio near 1 (0.75 to 1.33: a reader a little behind or catching up). */
        QUIET,
        /** DUPLICATE_CONSUMPTION, and the remediation may not roll the TaskManagers for it. */
        FLAGGED_ALERT_ONLY,
        /** DUPLICATE_CONSUMPTION that a restart of the readers ends. */
        FLAGGED_ROLLED
    }

    /**
     * One shape of job: how it reads (a stream built on the environment from the broker's
     * address), the topic named on its deployment (null: none) and the verdict expected.
     */
    record Shape(String name, String namedTopic, Verdict expected, int splits, Reading reading) {}

    /** Builds a shape's sources on {@code env}; {@code bootstrap} is the broker. */
    interface Reading {
        DataStream<Long> build(StreamExecutionEnvironment env, String bootstrap);
    }

    /** A shape's judgement: the finding, the ratio when there was one, and why. */
    record Judged(Shape shape, Optional<Finding> finding, Double ratio, String unit, boolean remediable) {
        Verdict verdict() {
            if (finding.isEmpty()) {
                return ratio != null && ratio > 0.75 && ratio < 1.33 ? Verdict.QUIET : null;
            }
            return remediable ? Verdict.FLAGGED_ROLLED : Verdict.FLAGGED_ALERT_ONLY;
        }
    }

    private static final Map<String, Double> TOPICS = new LinkedHashMap<>();

    static {
        TOPICS.put("zoo-single", 40.0);
        TOPICS.put("zoo-a", 20.0);
        TOPICS.put("zoo-b", 20.0);
        TOPICS.put("zoo-c", 36.0);
        TOPICS.put("zoo-d", 6.0);
        TOPICS.put("zoo.pattern.one", 20.0);
        TOPICS.put("zoo.pattern.two", 12.0);
        TOPICS.put("plant.device.events", 40.0);
        TOPICS.put("zoo-shared", 40.0);
        TOPICS.put("zoo-u1", 20.0);
        TOPICS.put("zoo-u2", 30.0);
        TOPICS.put("zoo-twin", 40.0);
        TOPICS.put("zoo-doubled", 40.0);
    }

    private static final List<Shape> SHAPES = List.of(
            new Shape(
                    "one topic",
                    null,
                    Verdict.QUIET,
                    4,
                    (env, b) -> read(env, b, "single", 1, s -> s.setTopics("zoo-single"))),
            new Shape(
                    "one reader of two topics fed equally, judged for one",
                    "zoo-a",
                    Verdict.QUIET,
                    8,
                    (env, b) -> read(env, b, "two-equal", 1, s -> s.setTopics("zoo-a", "zoo-b"))),
            new Shape(
                    "one reader of two topics fed unequally, judged for the busier",
                    "zoo-c",
                    Verdict.QUIET,
                    8,
                    (env, b) -> read(env, b, "two-unequal", 1, s -> s.setTopics("zoo-c", "zoo-d"))),
            new Shape(
                    "a topic pattern over two dotted topics",
                    null,
                    Verdict.QUIET,
                    8,
                    (env, b) ->
                            read(env, b, "pattern", 1, s -> s.setTopicPattern(Pattern.compile("zoo\\.pattern\\..*")))),
            new Shape(
                    "a dotted topic, named on the deployment",
                    "plant.device.events",
                    Verdict.QUIET,
                    4,
                    (env, b) -> read(env, b, "dotted-named", 1, s -> s.setTopics("plant.device.events"))),
            new Shape(
                    "a dotted topic, not named",
                    null,
                    Verdict.QUIET,
                    4,
                    (env, b) -> read(env, b, "dotted", 1, s -> s.setTopics("plant.device.events"))),
            new Shape(
                    "two jobs on one topic with different groups: the first",
                    null,
                    Verdict.QUIET,
                    4,
                    (env, b) -> read(env, b, "shared-1", 1, s -> s.setTopics("zoo-shared"))),
            new Shape(
                    "two jobs on one topic with different groups: the second",
                    null,
                    Verdict.QUIET,
                    4,
                    (env, b) -> read(env, b, "shared-2", 1, s -> s.setTopics("zoo-shared"))),
            new Shape(
                    "a union of two sources on different topics, judged for one",
                    "zoo-u1",
                    Verdict.QUIET,
                    8,
                    (env, b) -> read(env, b, "union-1", 1, s -> s.setTopics("zoo-u1"))
                            .union(read(env, b, "union-2", 1, s -> s.setTopics("zoo-u2")))),
            new Shape(
                    "twin sources on one topic",
                    null,
                    Verdict.FLAGGED_ALERT_ONLY,
                    8,
                    (env, b) -> read(env, b, "twin-1", 1, s -> s.setTopics("zoo-twin"))
                            .union(read(env, b, "twin-2", 1, s -> s.setTopics("zoo-twin")))),
            new Shape(
                    "a reader that emits every record twice",
                    null,
                    Verdict.FLAGGED_ALERT_ONLY,
                    4,
                    (env, b) -> read(env, b, "doubled", 2, s -> s.setTopics("zoo-doubled"))));

    private static EmbeddedKafka kafka;
    private static final List<PacedProducer> producers = new ArrayList<>();
    private static final Map<Shape, MiniCluster> clusters = new LinkedHashMap<>();
    private static final Map<Shape, String> urls = new LinkedHashMap<>();

    private final KafkaObserver topics = new AdminKafkaObserver(
            Duration.ofSeconds(10), ReconcilerOptions.KAFKA_SECURITY_PROTOCOL.defaultValue(), Clock.systemUTC());
    private final HttpFlinkRestClient rest = new HttpFlinkRestClient(Duration.ofSeconds(5));
    private final Configuration options =
            ReconcilerOptions.fromMap(Map.of(ReconcilerOptions.DUPLICATE_MIN_SPAN.key(), SPAN.toSeconds() + " s"));

    @BeforeAll
    static void startTheZoo() throws Exception {
        kafka = EmbeddedKafka.start(WORK.resolve("kafka-" + System.nanoTime()));
        for (Map.Entry<String, Double> t : TOPICS.entrySet()) {
            kafka.createTopic(t.getKey(), PARTITIONS);
            producers.add(PacedProducer.start(kafka.bootstrapServers(), t.getKey(), PARTITIONS, t.getValue()));
        }
        for (Shape shape : SHAPES) {
            Configuration c = new Configuration();
            c.set(RestOptions.BIND_PORT, "0");
            c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofMillis(500));
            MiniCluster mc = new MiniCluster(new MiniClusterConfiguration.Builder()
                    .setConfiguration(c)
                    .setNumTaskManagers(1)
                    .setNumSlotsPerTaskManager(2)
                    .build());
            mc.start();
            clusters.put(shape, mc);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            shape.reading()
                    .build(env, kafka.bootstrapServers())
                    .sinkTo(new DiscardingSink<>())
                    .name("sink");
            JobGraph graph = env.getStreamGraph().getJobGraph();
            mc.submitJob(graph).get();
            urls.put(shape, mc.getRestAddress().get().toString());
        }
    }

    @AfterAll
    static void stopTheZoo() throws Exception {
        for (MiniCluster mc : clusters.values()) {
            mc.close();
        }
        for (PacedProducer p : producers) {
            p.close();
        }
        kafka.close();
    }

    /**
     * A KafkaSource of parallelism 2 in group {@code name}, from the latest offsets (a catch-up
     * burst would inflate the 60-second rate meter), whose deserializer emits each record {@code
     * times} times.
     */
    private static DataStream<Long> read(
            StreamExecutionEnvironment env,
            String bootstrap,
            String name,
            int times,
            Consumer<KafkaSourceBuilder<Long>> topics) {
        KafkaSourceBuilder<Long> builder = KafkaSource.<Long>builder()
                .setBootstrapServers(bootstrap)
                .setGroupId(name)
                .setClientIdPrefix(name)
                .setStartingOffsets(OffsetsInitializer.latest())
                .setDeserializer(new RealFlinkRestTest.EmitEachRecord(times));
        topics.accept(builder);
        return env.fromSource(builder.build(), WatermarkStrategy.noWatermarks(), name)
                .uid(name)
                .setParallelism(2);
    }

    /** What the reconciler observes of a shape: its job through REST and its unit's topics through Kafka. */
    private Observation observe(Shape shape, KafkaObserver kafkaObserver, List<Sample> history) {
        DeploymentObserver.Observed seen = DeploymentObserver.observe(
                rest,
                urls.get(shape),
                shape.namedTopic(),
                "device-events",
                kafkaObserver,
                kafka.bootstrapServers(),
                null);
        return new Observation(
                Instant.now(),
                SpecObservation.builder(null, urls.get(shape)).build(),
                null,
                seen.flink(),
                seen.kafka(),
                history);
    }

    private Judged judge(Shape shape, Observation o) {
        HealthResult r = new DuplicateConsumptionCheck().evaluate(o, options, Clock.systemUTC());
        return new Judged(
                shape,
                r.find(FindingCode.DUPLICATE_CONSUMPTION),
                DuplicateConsumptionCheck.rates(o, options)
                        .map(DuplicateConsumptionCheck.Rates::ratio)
                        .orElse(null),
                o.kafka() == null ? "none" : o.kafka().topic(),
                DuplicateConsumptionCheck.remediable(r));
    }

    @Test
    void eachShapeGetsItsVerdictAndTheControlsShowTheQuietOnesCouldFail() throws Exception {
        // A source emits once its readers hold their splits (from the latest offsets): all of
        // the job's readers, not only those of the unit judged.
        for (Shape shape : SHAPES) {
            Await.until(
                    "all " + shape.splits() + " splits of '" + shape.name() + "' held by RUNNING readers",
                    Duration.ofSeconds(90),
                    e -> false,
                    () -> {
                        FlinkObservation.Job job = rest.observe(urls.get(shape), shape.namedTopic())
                                .job();
                        return job != null
                                && job.state() == JobStatus.RUNNING
                                && job.sources().stream()
                                                .mapToInt(FlinkObservation.Source::assignedSplits)
                                                .sum()
                                        >= shape.splits();
                    });
        }
        // The sources' numRecordsOutPerSecond is a 60-s meter: the first sample waits until it
        // holds reading alone (the same wait the check's coverage asks of a job's start).
        Instant full = Instant.now().plus(Duration.ofSeconds(60));
        Await.until(
                "the sources' 60-s rate meters to hold reading alone, at " + full,
                Duration.ofSeconds(90),
                e -> false,
                () -> !Instant.now().isBefore(full));
        Map<Shape, Observation> first = new LinkedHashMap<>();
        for (Shape shape : SHAPES) {
            first.put(shape, observe(shape, topics, List.of()));
        }
        Observation dottedFirst = observe(SHAPES.get(5), new ListingNoTopics(topics), List.of());
        Observation aAloneFirst = new Observation(
                Instant.now(),
                null,
                null,
                null,
                topics.observe(kafka.bootstrapServers(), List.of("zoo-a"), null),
                null);
        // Each shape is judged once its own first sample is the span old (the samples are taken
        // one shape after the other, seconds apart on a busy machine), and once the check has a
        // rate or a finding for it: a pass that could not read REST or Kafka judges nothing.
        Map<Shape, Judged> judged = new LinkedHashMap<>();
        Map<Shape, Judged> last = new LinkedHashMap<>();
        try {
            Await.until(
                    "a rate or a finding for every shape, from a second sample at least " + SPAN.toSeconds()
                            + " s after its first",
                    Duration.ofSeconds(90),
                    e -> false,
                    () -> {
                        for (Shape shape : SHAPES) {
                            if (judged.containsKey(shape)
                                    || Instant.now()
                                            .isBefore(first.get(shape)
                                                    .observedAt()
                                                    .plus(SPAN))) {
                                continue;
                            }
                            Judged j = judge(shape, observe(shape, topics, List.of(Sample.of(first.get(shape)))));
                            last.put(shape, j);
                            if (j.finding().isPresent() || j.ratio() != null) {
                                judged.put(shape, j);
                            }
                        }
                        return judged.size() == SHAPES.size();
                    });
        } catch (IllegalStateException e) {
            last.keySet().removeAll(judged.keySet());
            throw new AssertionError(e.getMessage() + "; the shapes not judged, as last seen: " + last, e);
        }

        System.out.println("shape | unit judged | ratio | verdict | expected");
        judged.values()
                .forEach(j -> System.out.printf(
                        "%s | %s | %s | %s | %s%n",
                        j.shape().name(),
                        j.unit(),
                        j.ratio() == null ? "-" : String.format("%.2f", j.ratio()),
                        j.finding()
                                .map(f -> f.code() + " " + f.evidence().get(DuplicateConsumptionCheck.EVIDENCE))
                                .orElse("quiet"),
                        j.shape().expected()));
        for (Judged j : judged.values()) {
            assertThat(j.verdict())
                    .as("%s: unit %s, ratio %s, finding %s", j.shape().name(), j.unit(), j.ratio(), j.finding())
                    .isEqualTo(j.shape().expected());
        }
        assertThat(judged.get(SHAPES.get(4)).finding()).isEmpty();
        Observation named = observe(SHAPES.get(4), topics, List.of());
        assertThat(named.job().sources())
                .as("the dotted topic's reader recognised by its own metrics, not taken on the word")
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.reader()).isEqualTo(KafkaReader.KAFKA_SOURCE);
                    assertThat(s.topics()).containsExactly("plant.device.events");
                });
        assertThat(judged.get(SHAPES.get(9)).finding().orElseThrow().evidence())
                .containsEntry(DuplicateConsumptionCheck.EVIDENCE, Evidence.SOURCES_SHARE_PARTITIONS);

        // The controls' own first samples were taken last: they too must be the span old.
        Instant controlsDue = aAloneFirst.observedAt().plus(SPAN);
        Await.until(
                "the controls' first samples to be " + SPAN.toSeconds() + " s old, at " + controlsDue,
                Duration.ofSeconds(30),
                e -> false,
                () -> !Instant.now().isBefore(controlsDue));

        // Control 1: the reader of zoo-a and zoo-b compared with zoo-a alone, as the check did
        // before it judged a reader against everything it reads: flagged.
        Shape twoTopics = SHAPES.get(1);
        Observation wholeUnit = observe(twoTopics, topics, List.of(Sample.of(first.get(twoTopics))));
        Observation oneTopic = new Observation(
                wholeUnit.observedAt(),
                wholeUnit.spec(),
                null,
                wholeUnit.flink(),
                topics.observe(kafka.bootstrapServers(), List.of("zoo-a"), null),
                List.of(Sample.of(aAloneFirst)));
        assertThat(DuplicateConsumptionCheck.rates(oneTopic, options)
                        .orElseThrow()
                        .ratio())
                .as("the reader's whole output against one of its two equally fed topics")
                .isGreaterThan(1.6);

        // Control 2: the dotted topic without Kafka's names (the listing's plant_device_events
        // taken as a topic name): the broker has no such topic, so nothing is judged.
        Observation unnamed = observe(SHAPES.get(5), new ListingNoTopics(topics), List.of(Sample.of(dottedFirst)));
        assertThat(unnamed.kafka().topics()).containsExactly("plant_device_events");
        assertThat(new DuplicateConsumptionCheck()
                        .evaluate(unnamed, options, Clock.systemUTC())
                        .codes())
                .containsExactly(FindingCode.DUPLICATES_NOT_JUDGED);
    }

    /** The broker seen through a reconciler that cannot list its topics: names stay as Flink lists them. */
    private record ListingNoTopics(KafkaObserver broker) implements KafkaObserver {
        @Override
        public KafkaObservation observe(String bootstrap, Collection<String> topics, String groupId) {
            return broker.observe(bootstrap, topics, groupId);
        }

        @Override
        public Optional<Set<String>> topicNames(String bootstrap) {
            return Optional.empty();
        }
    }
}
