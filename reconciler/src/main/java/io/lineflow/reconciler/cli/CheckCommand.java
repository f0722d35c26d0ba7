package io.lineflow.reconciler.cli;

import static io.lineflow.reconciler.ReconcilerOptions.CHECK_SAMPLE_GAP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_ENABLED;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_GROUP;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_SECURITY_PROTOCOL;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TIMEOUT;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TOPIC;
import static io.lineflow.reconciler.ReconcilerOptions.REST_TIMEOUT;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.act.Reports;
import io.lineflow.reconciler.checks.HealthEvaluator;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.AdminKafkaObserver;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.FlinkRestClient;
import io.lineflow.reconciler.observe.HttpFlinkRestClient;
import io.lineflow.reconciler.observe.KafkaObserver;
import io.lineflow.reconciler.observe.OperatorClient;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * `check`: one pass against the cluster (FlinkDeployments from the current kube context) or a
 * plain Flink REST URL; prints a table or JSON; exit code by worst severity.
 */
public final class CheckCommand {

    static final String USAGE =
            "check [--namespace NS] [--name NAME] | [--rest-url URL [--topic T] [--bootstrap HOST:PORT] [--group G]]\n"
                    + "      [--output table|json] [--no-kafka] [--set key=value]...";

    private CheckCommand() {}

    /** Seams for tests: how to reach Flink, Kafka and Kubernetes. */
    public record Deps(
            FlinkRestClient rest,
            KafkaObserver kafka,
            java.util.function.Supplier<KubernetesClient> kube,
            Clock clock) {
        public static Deps real(Configuration conf) {
            Clock clock = Clock.systemUTC();
            return new Deps(
                    new HttpFlinkRestClient(conf.get(REST_TIMEOUT)),
                    new AdminKafkaObserver(conf.get(KAFKA_TIMEOUT), conf.get(KAFKA_SECURITY_PROTOCOL), clock),
                    OperatorClient::create,
                    clock);
        }
    }

    public static int run(String[] argv, PrintStream out) throws InterruptedException {
        Args a = Args.parse(
                argv,
                Set.of("namespace", "name", "rest-url", "topic", "bootstrap", "group", "output"),
                Set.of("no-kafka"));
        Map<String, String> settings = new LinkedHashMap<>(a.settings);
        if (a.flag("no-kafka")) {
            settings.put(KAFKA_ENABLED.key(), "false");
        }
        Configuration conf = ReconcilerOptions.fromMap(settings);
        Deps deps = Deps.real(conf);
        try {
            return run(a, conf, deps, out);
        } finally {
            deps.kafka().close();
        }
    }

    static int run(Args a, Configuration conf, Deps deps, PrintStream out) throws InterruptedException {
        HealthEvaluator evaluator = new HealthEvaluator(conf, deps.clock());
        Duration gap = conf.get(CHECK_SAMPLE_GAP);
        List<Map.Entry<String, HealthResult>> results = new ArrayList<>();
        List<Observation> observations = new ArrayList<>();
        if (a.get("rest-url") != null) {
            String url = a.get("rest-url");
            String topic = a.get("topic");
            boolean kafka = conf.get(KAFKA_ENABLED) && a.get("bootstrap") != null;
            Observation first = observeUrl(
                    url,
                    topic,
                    conf.get(KAFKA_TOPIC),
                    kafka ? a.get("bootstrap") : null,
                    a.get("group", conf.get(KAFKA_GROUP)),
                    deps);
            Observation o = first;
            if (!gap.isZero()) {
                Thread.sleep(gap.toMillis());
                o = observeUrl(
                                url,
                                topic,
                                conf.get(KAFKA_TOPIC),
                                kafka ? a.get("bootstrap") : null,
                                a.get("group", conf.get(KAFKA_GROUP)),
                                deps)
                        .withHistory(List.of(Sample.of(first)));
            }
            results.add(Map.entry(url, evaluator.evaluateRuntimeOnly(o)));
            observations.add(o);
        } else {
            try (KubernetesClient client = deps.kube().get()) {
                var op = client.resources(FlinkDeployment.class);
                List<FlinkDeployment> fds;
                if (a.get("namespace") != null) {
                    fds = a.get("name") != null
                            ? java.util.Optional.ofNullable(op.inNamespace(a.get("namespace"))
                                            .withName(a.get("name"))
                                            .get())
                                    .map(List::of)
                                    .orElse(List.of())
                            : op.inNamespace(a.get("namespace")).list().getItems();
                } else {
                    fds = op.inAnyNamespace().list().getItems();
                }
                if (fds.isEmpty()) {
                    out.println("No FlinkDeployment found.");
                    return 0;
                }
                DeploymentObserver observer = new DeploymentObserver(conf, deps.rest(), deps.kafka(), deps.clock());
                List<Observation> firsts = new ArrayList<>();
                for (FlinkDeployment fd : fds) {
                    firsts.add(observer.observe(fd));
                }
                if (!gap.isZero()) {
                    Thread.sleep(gap.toMillis());
                }
                for (int i = 0; i < fds.size(); i++) {
                    Observation o = gap.isZero()
                            ? firsts.get(i)
                            : observer.observe(fds.get(i)).withHistory(List.of(Sample.of(firsts.get(i))));
                    results.add(Map.entry(o.spec().key().toString(), evaluator.evaluate(o)));
                    observations.add(o);
                }
            }
        }
        if ("json".equals(a.get("output", "table"))) {
            ArrayNode arr = Reports.JSON.createArrayNode();
            for (int i = 0; i < results.size(); i++) {
                Observation o = observations.get(i);
                arr.add(Reports.toJson(
                        o.spec().namespace(), o.spec().name(), results.get(i).getValue(), o.observedAt()));
            }
            out.println(Reports.write(arr));
        } else {
            out.print(Reports.table(results));
        }
        return results.stream()
                .map(e -> e.getValue().worst().orElse(Severity.INFO))
                .reduce(Severity.INFO, Severity::max)
                .exitCode();
    }

    private static Observation observeUrl(
            String url, String topic, String fallbackTopic, String bootstrap, String group, Deps deps) {
        SpecObservation spec = SpecObservation.builder(null, url).build();
        DeploymentObserver.Observed observed = DeploymentObserver.observe(
                deps.rest(), url, topic, fallbackTopic, bootstrap == null ? null : deps.kafka(), bootstrap, group);
        return new Observation(deps.clock().instant(), spec, null, observed.flink(), observed.kafka(), List.of());
    }
}
