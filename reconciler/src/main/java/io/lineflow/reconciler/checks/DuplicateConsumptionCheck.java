package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_MIN_RATE;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_MIN_SPAN;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_RATIO;
import static io.lineflow.reconciler.checks.Format.round;
import static io.lineflow.reconciler.checks.Samples.secondsBetween;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.reconciler.observe.Annotations;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * DUPLICATE_CONSUMPTION: the Kafka readers of a reading unit (the topics one reader, or readers
 * linked by a topic they share, read together) emit about twice what Kafka received on those
 * topics, or they hold more partition assignments than there are partitions. Every reader of the
 * unit counts, of every kind lineflow recognises ({@link io.lineflow.flinkrest.KafkaReader}): two
 * sources on one topic read each record twice. DUPLICATES_NOT_JUDGED (INFO) when a running job's
 * consumption cannot be compared with its topics', and why.
 *
 * <p>Each finding says which {@link Evidence} it rests on, and only evidence that a restart of the
 * readers fixes lets the {@linkplain #remediable remediation} roll TaskManagers: the rest alerts.
 */
public final class DuplicateConsumptionCheck implements Check {

    /** The span Flink's per-second rates ({@code numRecordsOutPerSecond}, a MeterView) average over. */
    private static final Duration SOURCE_RATE_AVERAGING = Duration.ofSeconds(60);

    /**
     * Whether a running job's consumption can be compared with its topic's: {@code reason} says
     * why not ({@code null} when it can; the comparison may still wait for enough history).
     */
    public record Coverage(String reason) {
        public boolean judged() {
            return reason == null;
        }
    }

    /**
     * Whether the rates of {@code o} can be compared, once there is history enough: empty when
     * there is no running job to judge (other checks report that), or while it is new — started
     * within the rate meter's minute and {@code duplicate.min-sample-span}, when nothing can be
     * judged yet and a reader may not have registered its metrics (a {@code KafkaSource}'s come
     * with its splits, Beam's with the first records read).
     */
    public static Optional<Coverage> coverage(Observation o, Configuration conf) {
        Job job = o.job();
        if (job == null
                || job.state() != JobStatus.RUNNING
                || (job.startTime() != null
                        && job.startTime()
                                .isAfter(o.observedAt()
                                        .minus(SOURCE_RATE_AVERAGING)
                                        .minus(conf.get(DUPLICATE_MIN_SPAN))))) {
            return Optional.empty();
        }
        KafkaObservation k = o.kafka();
        String reason = null;
        if (job.sources().isEmpty()) {
            reason = job.otherTopics().isEmpty()
                    ? "no Kafka reader was recognised in the job (recognised: " + KNOWN_READERS
                            + "); if it reads Kafka, name the topic with the annotation " + Annotations.KAFKA_TOPIC
                            + " (the job's source vertex is then judged, if it has only one) and the group with "
                            + Annotations.KAFKA_GROUP
                    : "its Kafka readers read " + String.join(", ", new TreeSet<>(job.otherTopics()))
                            + (k == null ? "" : ", not the topic " + k.topic())
                            + ": name the topic to judge with the annotation " + Annotations.KAFKA_TOPIC;
        } else if (k == null) {
            reason = "Kafka is not observed (reconciler.kafka.enabled, or no bootstrap address)";
        } else if (!k.ok() || k.endOffsetSum() == null) {
            reason = "Kafka could not be read for " + k.topic() + ": " + k.error();
        } else if (job.sourceRecordsOutPerSecond() == null) {
            reason = "Flink reports no numRecordsOutPerSecond for the reading operator of "
                    + job.sources().stream()
                            .filter(s -> s.recordsOutPerSecond() == null)
                            .map(FlinkObservation.Source::vertexName)
                            .toList();
        }
        return Optional.of(new Coverage(reason));
    }

    private static final String KNOWN_READERS = String.join(
            ", ",
            Arrays.stream(KafkaReader.values())
                    .filter(r -> r != KafkaReader.SOURCE_VERTEX)
                    .map(r -> r.label() + " by " + r.metric())
                    .toList());

    /**
     * What a DUPLICATE_CONSUMPTION finding rests on, and whether rolling the TaskManagers (the
     * readers restarting from the last checkpoint) can end it.
     */
    public enum Evidence {
        /**
         * One reading operator holds a partition in two of its readers: a reader restored twice,
         * which no job is built to have. A restart gives each partition one reader again.
         */
        PARTITION_HELD_TWICE_BY_ONE_SOURCE(true),
        /**
         * Two reading operators of the job read the same partitions: the job is built so (a
         * second source on the topic), and a restart builds it the same way again.
         */
        SOURCES_SHARE_PARTITIONS(false),
        /**
         * The one reader of the unit emits about twice what Kafka received, and its kind cannot
         * show its assignments (Beam's KafkaIO): the incident's signature, a reader doubled by a
         * restore, which a restart ends.
         */
        RATE_OF_A_READER_WITHOUT_ASSIGNMENTS(true),
        /**
         * The readers emit about twice what Kafka received although their assignments are counted
         * and hold each partition once, or the reader was taken on the deployment's word: the job
         * emits more than it reads (a deserializer that emits a record twice, sources that share
         * a topic), which a restart does not change.
         */
        RATE(false);

        private final boolean restartEndsIt;

        Evidence(boolean restartEndsIt) {
            this.restartEndsIt = restartEndsIt;
        }

        /** Whether rolling the TaskManagers can end what this evidence shows. */
        public boolean restartEndsIt() {
            return restartEndsIt;
        }
    }

    /** The finding's evidence key that names its {@link Evidence}. */
    public static final String EVIDENCE = "evidence";

    /**
     * Whether {@code result}'s DUPLICATE_CONSUMPTION rests on evidence that rolling the
     * TaskManagers ends: the one rule the remediation acts by.
     */
    public static boolean remediable(HealthResult result) {
        return result.find(FindingCode.DUPLICATE_CONSUMPTION)
                .map(f -> f.evidence().get(EVIDENCE))
                .filter(e -> e instanceof Evidence ev && ev.restartEndsIt())
                .isPresent();
    }

    /** Source rate, topic rates, their ratio and the span the topic rates were measured over. */
    public record Rates(double sourceRate, double produceRate, double catchUpRate, double ratio, Duration span) {}

    /**
     * The duplicate ratio: source records/s divided by the rate at which the unit's topics are
     * consumed, i.e. the produce rate plus the rate the lag shrinks at (so a catching-up job reads
     * ~1). The base sample must be of the same topics.
     */
    public static Optional<Rates> rates(Observation o, Configuration conf) {
        Job job = o.job();
        KafkaObservation k = o.kafka();
        if (job == null
                || job.sourceRecordsOutPerSecond() == null
                || k == null
                || !k.ok()
                || k.endOffsetSum() == null) {
            return Optional.empty();
        }
        Duration minSpan = conf.get(DUPLICATE_MIN_SPAN);
        Sample base = null;
        for (Sample s : o.history()) {
            if (s.endOffsetSum() != null
                    && s.topics().equals(k.topics())
                    && !Duration.between(s.at(), o.observedAt()).minus(minSpan).isNegative()) {
                base = s; // the newest sample that is old enough
            }
        }
        // A restore re-reads the records after its checkpoint, so the sources rightly emit more
        // than the topic receives (the committed offsets do not move back, so the lag does not
        // show the replay) until the replay has left the rate's average: the ratio says nothing
        // then. Seen under the operator after a broker restart: ratio 4.7, a CRITICAL finding, and
        // an opt-in remediation would have rolled the pods.
        if (base == null || Samples.restoredWithin(o, job, base.at().minus(SOURCE_RATE_AVERAGING))) {
            return Optional.empty();
        }
        double seconds = secondsBetween(base.at(), o.observedAt());
        double produce = (k.endOffsetSum() - base.endOffsetSum()) / seconds;
        double catchUp = 0;
        if (k.lag() != null && base.lag() != null) {
            catchUp = Math.max(0, (base.lag() - k.lag()) / seconds);
        }
        double consumed = produce + catchUp;
        double source = job.sourceRecordsOutPerSecond();
        double ratio = consumed > 0 ? source / consumed : 0;
        return Optional.of(new Rates(source, produce, catchUp, ratio, Duration.between(base.at(), o.observedAt())));
    }

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        Job job = o.job();
        if (job == null) {
            return HealthResult.healthy();
        }
        Optional<HealthResult> held = assignments(job, o.kafka());
        if (held.isPresent()) {
            return held.get();
        }
        Optional<Coverage> coverage = coverage(o, conf);
        if (coverage.isEmpty()) {
            return HealthResult.healthy();
        }
        if (!coverage.get().judged()) {
            return Finding.of(
                            FindingCode.DUPLICATES_NOT_JUDGED,
                            Severity.INFO,
                            "Whether records are read twice cannot be judged: "
                                    + coverage.get().reason()
                                    + (job.countedSources().isEmpty()
                                            ? "."
                                            : ". Only the readers' partition assignments were counted.")
                                    + " A double read would go unnoticed.")
                    .with("reason", coverage.get().reason())
                    .with("kafkaSources", job.sources().size())
                    .build()
                    .asResult();
        }
        Optional<Rates> rates = rates(o, conf);
        if (rates.isEmpty() || rates.get().produceRate() < conf.get(DUPLICATE_MIN_RATE)) {
            return HealthResult.healthy();
        }
        Rates r = rates.get();
        if (r.ratio() < conf.get(DUPLICATE_RATIO)) {
            return HealthResult.healthy();
        }
        Evidence evidence = job.sources().size() == 1
                        && !job.sources().get(0).reader().countsAssignments()
                        && job.sources().get(0).reader() != KafkaReader.SOURCE_VERTEX
                ? Evidence.RATE_OF_A_READER_WITHOUT_ASSIGNMENTS
                : Evidence.RATE;
        return Finding.of(
                        FindingCode.DUPLICATE_CONSUMPTION,
                        Severity.CRITICAL,
                        "The Kafka reader" + (job.sources().size() > 1 ? "s (" : " (")
                                + recognitions(job.sources()) + ") emit"
                                + (job.sources().size() > 1 ? " " : "s ")
                                + round(r.sourceRate()) + " records/s while "
                                + o.kafka().topic() + " "
                                + (o.kafka().topics().size() > 1 ? "are" : "is") + " consumed at "
                                + round(r.produceRate() + r.catchUpRate())
                                + " records/s (ratio " + round(r.ratio())
                                + "): records are being read more than once, which doubles the counts even though the job looks healthy. "
                                + advice(evidence))
                .with("ratio", round(r.ratio()))
                .with("sourceRecordsPerSecond", round(r.sourceRate()))
                .with("topicProduceRate", round(r.produceRate()))
                .with("lagShrinkRate", round(r.catchUpRate()))
                .with("sampleSpanSeconds", r.span().toSeconds())
                .with("topics", o.kafka().topic())
                .with("kafkaSources", job.sources().size())
                .with("readers", readerKinds(job.sources()))
                .with(EVIDENCE, evidence)
                .build()
                .asResult();
    }

    /**
     * A partition held more than once, which shows the moment the readers hold their splits (no
     * warm-up): within one source, a reader restored twice; across sources, the job's shape.
     */
    private static Optional<HealthResult> assignments(Job job, KafkaObservation kafka) {
        Integer partitions = kafka != null && kafka.ok() ? kafka.partitions() : null;
        int assigned = job.assignedSplits();
        int distinct = job.partitionsRead().size();
        List<FlinkObservation.Source> heldTwice = job.sourcesHoldingAPartitionTwice();
        if (heldTwice.isEmpty() && assigned <= distinct && (partitions == null || assigned <= partitions)) {
            return Optional.empty();
        }
        Evidence evidence =
                heldTwice.isEmpty() ? Evidence.SOURCES_SHARE_PARTITIONS : Evidence.PARTITION_HELD_TWICE_BY_ONE_SOURCE;
        return Optional.of(Finding.of(
                        FindingCode.DUPLICATE_CONSUMPTION,
                        Severity.CRITICAL,
                        "The Kafka readers (" + recognitions(job.countedSources()) + ") hold " + assigned
                                + " partition assignments for "
                                + (partitions != null ? partitions : distinct) + " partitions"
                                + (heldTwice.isEmpty()
                                        ? " across " + job.countedSources().size() + " sources reading the same topic"
                                        : ", " + recognitions(heldTwice) + " holding a partition in two readers")
                                + ": some partitions are read twice, so every record in them is counted twice. "
                                + advice(evidence))
                .with("assignedSplits", assigned)
                .with("distinctPartitions", distinct)
                .with("topicPartitions", partitions)
                .with("kafkaSources", job.sources().size())
                .with("readers", readerKinds(job.countedSources()))
                .with(
                        "sourceParallelism",
                        job.sources().stream()
                                .mapToInt(FlinkObservation.Source::parallelism)
                                .sum())
                .with(EVIDENCE, evidence)
                .build()
                .asResult());
    }

    /** What to do about a double read that rests on {@code evidence}. */
    private static String advice(Evidence evidence) {
        return evidence.restartEndsIt()
                ? "Roll the TaskManager pods (or set lineflow.io/remediate: \"true\") and compare the affected windows."
                : "Rolling the TaskManagers would not end it, and the remediation does not act on it: the job"
                        + " itself reads or emits its records more than once (a second source on the topic, a"
                        + " deserializer that emits a record twice). Change the job, then compare the affected windows.";
    }

    private static String recognitions(List<FlinkObservation.Source> sources) {
        return String.join(
                "; ", sources.stream().map(FlinkObservation.Source::recognition).toList());
    }

    /** The kinds of reader among {@code sources}, e.g. {@code KAFKA_SOURCE,BEAM_KAFKA_IO}: a finding's and a metric's label. */
    public static String readerKinds(List<FlinkObservation.Source> sources) {
        return String.join(
                ",", sources.stream().map(s -> s.reader().name()).distinct().toList());
    }
}
