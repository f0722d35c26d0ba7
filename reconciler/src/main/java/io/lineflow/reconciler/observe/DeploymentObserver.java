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
        Observed observed = observe(
                rest,
                spec.suspended() ? null : restUrl(spec),
                annotation(spec, Annotations.KAFKA_TOPIC, null),
                conf.get(KAFKA_TOPIC),
                conf.get(KAFKA_ENABLED) ? kafka : null,
                annotation(spec, Annotations.KAFKA_BOOTSTRAP, conf.get(KAFKA_BOOTSTRAP)),
                annotation(spec, Annotations.KAFKA_GROUP, conf.get(KAFKA_GROUP)));
        return new Observation(
                clock.instant(), spec, SpecReader.status(fd), observed.flink(), observed.kafka(), List.of());
    }

    /** A job as its REST API shows it, and the topic its duplicate check judges as Kafka shows it. */
    public record Observed(FlinkObservation flink, KafkaObservation kafka) {}

    /**
     * Observes the job behind {@code restUrl} (none if null) and the topic whose consumption is
     * judged: {@code explicitTopic} if given (the annotation, the CLI's option); else the one topic
     * the job's recognised Kafka readers read; of several, {@code fallbackTopic} if it is one of
     * them, else none (the duplicate check then says it cannot judge); with no reader recognised,
     * {@code fallbackTopic}. Kafka is asked only when {@code kafka} is not null and a topic is known.
     */
    public static Observed observe(
            FlinkRestClient rest,
            String restUrl,
            String explicitTopic,
            String fallbackTopic,
            KafkaObserver kafka,
            String bootstrap,
            String group) {
        FlinkObservation flink = restUrl == null ? null : rest.observe(restUrl, explicitTopic);
        String topic = explicitTopic;
        if (topic == null) {
            topic = flink == null || flink.job() == null
                    ? fallbackTopic
                    : flink.job().topicToJudge(fallbackTopic);
            if (topic != null && flink != null) {
                flink = flink.reading(topic);
            }
        }
        KafkaObservation k = kafka == null || topic == null ? null : kafka.observe(bootstrap, topic, group);
        return new Observed(flink, k);
    }

    public String restUrl(SpecObservation spec) {
        String explicit = spec.annotations().get(Annotations.REST_URL);
        if (explicit != null && !explicit.isBlank()) {
            return explicit.trim();
        }
        return conf.get(REST_URL_TEMPLATE).replace("{name}", spec.name()).replace("{namespace}", spec.namespace());
    }

    private static String annotation(SpecObservation spec, String key, String fallback) {
        String v = spec.annotations().get(key);
        return v == null || v.isBlank() ? fallback : v.trim();
    }
}
