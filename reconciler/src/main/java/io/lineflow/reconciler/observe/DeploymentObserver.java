package io.lineflow.reconciler.observe;

import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_BOOTSTRAP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_ENABLED;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_GROUP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TOPIC;
import static io.lineflow.reconciler.ReconcilerOptions.REST_URL_TEMPLATE;

import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.SpecObservation;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;

import java.time.Clock;
import java.util.List;

/** Observes one FlinkDeployment: its spec and status, its Flink REST API and its Kafka topic. */
public final class DeploymentObserver {

    private final Configuration conf;
    private final FlinkRestClient rest;
    private final KafkaObserver kafka;
    private final Clock clock;

    public DeploymentObserver(Configuration conf, FlinkRestClient rest, KafkaObserver kafka, Clock clock) {
        this.conf = conf;
        this.rest = rest;
        this.kafka = kafka;
        this.clock = clock;
    }

    public Observation observe(FlinkDeployment fd) {
        SpecObservation spec = SpecReader.spec(fd);
        FlinkObservation flink = null;
        if (!spec.suspended()) {
            flink = rest.observe(restUrl(spec), topic(spec));
        }
        KafkaObservation k = null;
        if (conf.get(KAFKA_ENABLED)) {
            k = kafka.observe(
                    annotation(spec, Annotations.KAFKA_BOOTSTRAP, conf.get(KAFKA_BOOTSTRAP)),
                    topic(spec),
                    annotation(spec, Annotations.KAFKA_GROUP, conf.get(KAFKA_GROUP)));
        }
        return new Observation(clock.instant(), spec, SpecReader.status(fd), flink, k, List.of());
    }

    public String restUrl(SpecObservation spec) {
        String explicit = spec.annotations().get(Annotations.REST_URL);
        if (explicit != null && !explicit.isBlank()) {
            return explicit.trim();
        }
        return conf.get(REST_URL_TEMPLATE).replace("{name}", spec.name()).replace("{namespace}", spec.namespace());
    }

    private String topic(SpecObservation spec) {
        return annotation(spec, Annotations.KAFKA_TOPIC, conf.get(KAFKA_TOPIC));
    }

    private static String annotation(SpecObservation spec, String key, String fallback) {
        String v = spec.annotations().get(key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }
}
