package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.ReconcilerOptions.LAG_MIN_GROWTH;
import static io.lineflow.reconciler.ReconcilerOptions.LAG_MIN_SAMPLES;
import static io.lineflow.reconciler.ReconcilerOptions.LAG_WINDOW;
import static io.lineflow.reconciler.ReconcilerOptions.RETENTION_DETECTION_ALLOWANCE;
import static io.lineflow.reconciler.ReconcilerOptions.RETENTION_RECOVERY_ALLOWANCE;
import static io.lineflow.reconciler.checks.Format.human;
import static io.lineflow.reconciler.checks.Format.round;
import static io.lineflow.reconciler.checks.Samples.secondsBetween;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The input topic: KAFKA_RETENTION_TOO_SHORT and CONSUMER_LAG_GROWING. */
public final class KafkaCheck implements Check {

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        return kafkaRetentionTooShort(o, conf, clock).join(consumerLagGrowing(o, conf));
    }

    /** KAFKA_RETENTION_TOO_SHORT: the topic would delete records before a restored job re-reads them. */
    public static HealthResult kafkaRetentionTooShort(Observation o, Configuration conf, Clock clock) {
        KafkaObservation k = o.kafka();
        if (k == null || !k.ok() || k.retention() == null) {
            return HealthResult.healthy();
        }
        Job job = o.job();
        Instant latest = job == null || job.checkpoints() == null
                ? null
                : job.checkpoints().latestCompletedAt();
        Duration stale = CheckpointCheck.staleWindow(o).orElse(Duration.ZERO);
        // A checkpoint may be as old as the stale window before anyone notices, so take the larger
        // (with none completed yet, the stale window is all there is).
        Duration checkpointAge = latest == null ? Duration.ZERO : Duration.between(latest, clock.instant());
        Duration age = checkpointAge.compareTo(stale) >= 0 ? checkpointAge : stale;
        Duration required =
                age.plus(conf.get(RETENTION_DETECTION_ALLOWANCE)).plus(conf.get(RETENTION_RECOVERY_ALLOWANCE));
        if (k.retention().compareTo(required) >= 0) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.KAFKA_RETENTION_TOO_SHORT,
                        Severity.CRITICAL,
                        "Topic " + k.topic() + " keeps records for " + human(k.retention()) + ", less than the "
                                + human(required)
                                + " a recovery may need (checkpoint age " + human(age)
                                + " + detection + recovery allowances): records not yet in a checkpoint "
                                + "could be deleted before the job re-reads them. Raise retention.ms on the topic.")
                .with("retentionSeconds", k.retention().toSeconds())
                .with("requiredSeconds", required.toSeconds())
                .with("checkpointAgeSeconds", age.toSeconds())
                .build()
                .asResult();
    }

    /** CONSUMER_LAG_GROWING: the committed lag trends upward over the window. */
    public static HealthResult consumerLagGrowing(Observation o, Configuration conf) {
        KafkaObservation k = o.kafka();
        if (k == null || !k.ok() || k.lag() == null) {
            return HealthResult.healthy();
        }
        Duration window = conf.get(LAG_WINDOW);
        List<double[]> points = new ArrayList<>();
        Instant from = o.observedAt().minus(window);
        for (Sample s : o.history()) {
            if (s.lag() != null && !s.at().isBefore(from) && s.topics().equals(k.topics())) {
                points.add(new double[] {secondsBetween(from, s.at()), s.lag()});
            }
        }
        points.add(new double[] {secondsBetween(from, o.observedAt()), k.lag()});
        if (points.size() < conf.get(LAG_MIN_SAMPLES)) {
            return HealthResult.healthy();
        }
        double span = points.get(points.size() - 1)[0] - points.get(0)[0];
        if (span <= 0) {
            return HealthResult.healthy();
        }
        double slope = slope(points);
        double growth = slope * span;
        long minGrowth = conf.get(LAG_MIN_GROWTH);
        if (slope <= 0 || growth < minGrowth || k.lag() < minGrowth) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.CONSUMER_LAG_GROWING,
                        Severity.WARNING,
                        "Consumer lag on " + k.topic() + " is " + k.lag() + " records and grew by about "
                                + Math.round(growth) + " in "
                                + human(Duration.ofSeconds((long) span))
                                + ": the job reads slower than the line produces, so windows close late. "
                                + "Check backpressure and sink latency, or raise parallelism (up to the partition count).")
                .with("lag", k.lag())
                .with("growthInWindow", Math.round(growth))
                .with("recordsPerSecond", round(slope))
                .with("samples", points.size())
                .build()
                .asResult();
    }

    /** The least-squares slope of the points (x, y), 0 when all x are equal. */
    private static double slope(List<double[]> pts) {
        double mx = 0, my = 0;
        for (double[] p : pts) {
            mx += p[0];
            my += p[1];
        }
        mx /= pts.size();
        my /= pts.size();
        double num = 0, den = 0;
        for (double[] p : pts) {
            num += (p[0] - mx) * (p[1] - my);
            den += (p[0] - mx) * (p[0] - mx);
        }
        return den == 0 ? 0 : num / den;
    }
}
