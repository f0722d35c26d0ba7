package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;

/** OBSERVATION_FAILED: an observer could not be read, so the checks that need it were skipped. */
public final class ObservationCheck implements Check {

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        HealthResult r = HealthResult.healthy();
        if (o.flink() != null && !o.flink().ok()) {
            r = r.join(Finding.of(
                            FindingCode.OBSERVATION_FAILED,
                            Severity.WARNING,
                            "The Flink REST API at " + o.flink().restUrl() + " could not be read ("
                                    + o.flink().error()
                                    + "); job, checkpoint and duplicate checks were skipped. Check the JobManager pod and its -rest Service, "
                                    + "or set the annotation lineflow.io/rest-url.")
                    .with("source", "flink-rest")
                    .with("url", o.flink().restUrl())
                    .with("error", o.flink().error())
                    .build()
                    .asResult());
        }
        if (o.kafka() != null && !o.kafka().ok()) {
            r = r.join(Finding.of(
                            FindingCode.OBSERVATION_FAILED,
                            Severity.WARNING,
                            "Kafka at " + o.kafka().bootstrap() + " could not be read for topic "
                                    + o.kafka().topic() + " ("
                                    + o.kafka().error() + "); retention, lag and duplicate-rate checks were skipped. "
                                    + "Check the annotations lineflow.io/kafka-bootstrap and lineflow.io/kafka-topic.")
                    .with("source", "kafka")
                    .with("bootstrap", o.kafka().bootstrap())
                    .with("topic", o.kafka().topic())
                    .with("error", o.kafka().error())
                    .build()
                    .asResult());
        }
        return r;
    }
}
