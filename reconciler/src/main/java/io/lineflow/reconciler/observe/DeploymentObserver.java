package io.lineflow.reconciler.observe;

import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_BOOTSTRAP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_ENABLED;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_GROUP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TOPIC;
import static io.lineflow.reconciler.ReconcilerOptions.REST_URL_TEMPLATE;

import io.lineflow.flinkrest.ReaderPartition;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.SpecObservation;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

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
     * Observes the job behind {@code restUrl} (none if null) and the topics whose consumption is
     * judged ({@link FlinkObservation.Job#unitToJudge}): those read together with {@code
     * explicitTopic} if given (the annotation, the CLI's option); else the job's one reading unit;
     * of several, the one with {@code fallbackTopic}, else none (the duplicate check then says it
     * cannot judge); with no reader recognised, {@code fallbackTopic}. The readers' topics are
     * named as Kafka names them. Kafka is asked only when {@code kafka} is not null and a topic is
     * known.
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
        FlinkObservation.Job job = flink == null ? null : flink.job();
        if (job != null && kafka != null) {
            flink = flink.renamed(kafkaNames(kafka, bootstrap, job.topicsRead()));
            job = flink.job();
        }
        String named = explicitTopic != null ? explicitTopic : fallbackTopic;
        Optional<Set<String>> unit =
                job == null ? Optional.ofNullable(named).map(Set::of) : job.unitToJudge(explicitTopic, fallbackTopic);
        if (flink != null && unit.isPresent()) {
            flink = flink.reading(unit.get());
        }
        KafkaObservation k = kafka == null || unit.isEmpty() ? null : kafka.observe(bootstrap, unit.get(), group);
        return new Observed(flink, k);
    }

    /**
     * Kafka's name of each topic as Flink's metric listing writes it ({@link
     * ReaderPartition#kafkaName}); a name that no topic of the broker is listed as stays as it is,
     * and the topic is then reported as one Kafka does not have. The broker's topics are listed
     * only when a name could stand for a dotted one.
     */
    private static UnaryOperator<String> kafkaNames(KafkaObserver kafka, String bootstrap, Set<String> listed) {
        if (listed.stream().noneMatch(t -> t.indexOf('_') >= 0)) {
            return UnaryOperator.identity();
        }
        Set<String> broker = kafka.topicNames(bootstrap).orElse(Set.of());
        return t -> ReaderPartition.kafkaName(t, broker).orElse(t);
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
