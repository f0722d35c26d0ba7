package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_MIN_RATE;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_MIN_SPAN;
import static io.lineflow.reconciler.ReconcilerOptions.DUPLICATE_RATIO;
import static io.lineflow.reconciler.checks.Format.round;
import static io.lineflow.reconciler.checks.Samples.secondsBetween;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * DUPLICATE_CONSUMPTION: the Kafka sources reading the topic emit about twice what Kafka
 * received, or their readers hold more partition assignments than there are partitions. Every
 * source reading the topic counts: two sources on one topic read each record twice.
 */
public final class DuplicateConsumptionCheck implements Check {

    /** The span Flink's per-second rates ({@code numRecordsOutPerSecond}, a MeterView) average over. */
    private static final Duration SOURCE_RATE_AVERAGING = Duration.ofSeconds(60);

    /** Source rate, topic rates, their ratio and the span the topic rates were measured over. */
    public record Rates(double sourceRate, double produceRate, double catchUpRate, double ratio, Duration span) {}

    /**
     * The duplicate ratio: source records/s divided by the rate at which the topic is consumed,
     * i.e. the produce rate plus the rate the lag shrinks at (so a catching-up job reads ~1).
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
        if (job == null || job.sources().isEmpty()) {
            return HealthResult.healthy();
        }
        Integer partitions = o.kafka() != null && o.kafka().ok() ? o.kafka().partitions() : null;
        int assigned = job.assignedSplits();
        int distinct = job.partitionsRead().size();
        if (assigned > distinct || (partitions != null && assigned > partitions)) {
            return Finding.of(
                            FindingCode.DUPLICATE_CONSUMPTION,
                            Severity.CRITICAL,
                            "The Kafka source readers hold " + assigned + " partition assignments for "
                                    + (partitions != null ? partitions : distinct) + " partitions"
                                    + (job.sources().size() > 1
                                            ? " across " + job.sources().size() + " sources reading the same topic ("
                                                    + sourceNames(job) + ")"
                                            : "")
                                    + ": some partitions are read twice, so every record in them is counted twice. "
                                    + (job.sources().size() > 1 ? "Remove the extra source from the job, or " : "")
                                    + "roll the TaskManager pods (or set lineflow.io/remediate: \"true\") and compare the affected windows.")
                    .with("assignedSplits", assigned)
                    .with("distinctPartitions", distinct)
                    .with("topicPartitions", partitions)
                    .with("kafkaSources", job.sources().size())
                    .with(
                            "sourceParallelism",
                            job.sources().stream()
                                    .mapToInt(FlinkObservation.Source::parallelism)
                                    .sum())
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
        return Finding.of(
                        FindingCode.DUPLICATE_CONSUMPTION,
                        Severity.CRITICAL,
                        "The Kafka source"
                                + (job.sources().size() > 1 ? "s (" + sourceNames(job) + ") emit " : " emits ")
                                + round(r.sourceRate()) + " records/s while the topic is consumed at "
                                + round(r.produceRate() + r.catchUpRate())
                                + " records/s (ratio " + round(r.ratio())
                                + "): records are being read more than once, which doubles the counts even though the job looks healthy. "
                                + "Roll the TaskManager pods (or set lineflow.io/remediate: \"true\") and compare the affected windows.")
                .with("ratio", round(r.ratio()))
                .with("sourceRecordsPerSecond", round(r.sourceRate()))
                .with("topicProduceRate", round(r.produceRate()))
                .with("lagShrinkRate", round(r.catchUpRate()))
                .with("sampleSpanSeconds", r.span().toSeconds())
                .with("kafkaSources", job.sources().size())
                .build()
                .asResult();
    }

    private static String sourceNames(Job job) {
        return String.join(
                ", ",
                job.sources().stream().map(FlinkObservation.Source::vertexName).toList());
    }
}
