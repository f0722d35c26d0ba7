package io.lineflow.reconciler;

import static io.lineflow.reconciler.ReconcilerOptions.HISTORY_RETENTION;
import static io.lineflow.reconciler.ReconcilerOptions.HTTP_PORT;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_SECURITY_PROTOCOL;
import static io.lineflow.reconciler.ReconcilerOptions.KAFKA_TIMEOUT;
import static io.lineflow.reconciler.ReconcilerOptions.REST_TIMEOUT;

import io.lineflow.reconciler.act.EventPublisher;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.act.Remediator;
import io.lineflow.reconciler.act.SummaryPublisher;
import io.lineflow.reconciler.audit.AuditLoop;
import io.lineflow.reconciler.cli.Args;
import io.lineflow.reconciler.cli.AuditCommand;
import io.lineflow.reconciler.cli.CheckCommand;
import io.lineflow.reconciler.cli.LintCommand;
import io.lineflow.reconciler.controller.HealthServer;
import io.lineflow.reconciler.controller.Reconciler;
import io.lineflow.reconciler.controller.ReconcilerController;
import io.lineflow.reconciler.observe.AdminKafkaObserver;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.HistoryStore;
import io.lineflow.reconciler.observe.HttpFlinkRestClient;
import io.lineflow.reconciler.observe.OperatorClient;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** Entry point: `run` (the in-cluster reconciler), `check`, `lint`, `audit`, `options`. */
public final class Main {

    static final int USAGE_ERROR = 64;

    private Main() {}

    public static void main(String[] argv) throws Exception {
        System.exit(run(argv));
    }

    static int run(String[] argv) throws Exception {
        if (argv.length == 0 || argv[0].equals("help") || argv[0].equals("--help")) {
            usage();
            return argv.length == 0 ? USAGE_ERROR : 0;
        }
        String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
        try {
            return switch (argv[0]) {
                case "run" -> runController(rest);
                case "check" -> CheckCommand.run(rest, System.out);
                case "lint" -> LintCommand.run(rest, System.in, System.out, System.err);
                case "audit" -> AuditCommand.run(rest, System.out);
                case "options" -> {
                    for (ConfigOption<?> o : ReconcilerOptions.all()) {
                        System.out.printf(
                                "%s (default: %s)%n    %s%n",
                                o.key(), ReconcilerOptions.defaultText(o), ReconcilerOptions.describe(o));
                    }
                    yield 0;
                }
                default -> throw new Args.UsageException("Unknown command " + argv[0]);
            };
        } catch (Args.UsageException | IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            usage();
            return USAGE_ERROR;
        }
    }

    private static void usage() {
        System.err.println("usage: lineflow-reconciler <command>\n"
                + "  run   [--set key=value]...            watch FlinkDeployments, publish Events/summary/metrics; audit, remediate (each opt-in)\n"
                + "  check ...                              one pass; exit 0 ok/info, 1 warning, 2 critical\n"
                + "  lint  [--output table|json] FILE|-    spec checks on rendered manifests (GitOps gate)\n"
                + "  audit --bootstrap H:P --jdbc-url URL  recount closed windows from Kafka (all, or --span), diff against PostgreSQL\n"
                + "  options                                list every setting with its default\n"
                + "settings: --set lineflow.reconciler.<key>=<value>, or env LINEFLOW_RECONCILER_<KEY>=<value>");
    }

    private static int runController(String[] argv) throws Exception {
        Args a = Args.parse(argv, java.util.Set.of(), java.util.Set.of());
        Map<String, String> settings = new LinkedHashMap<>(ReconcilerOptions.fromEnv(System.getenv()));
        settings.putAll(a.settings());
        Configuration conf = ReconcilerOptions.fromMap(settings);
        Clock clock = Clock.systemUTC();
        KubernetesClient client = OperatorClient.create();
        EventPublisher events = new EventPublisher(client, conf, clock);
        Metrics metrics = new Metrics(conf, clock);
        AdminKafkaObserver kafka =
                new AdminKafkaObserver(conf.get(KAFKA_TIMEOUT), conf.get(KAFKA_SECURITY_PROTOCOL), clock);
        AuditLoop audit = AuditLoop.of(conf, System.getenv(), client, metrics, clock);
        Reconciler reconciler = new Reconciler(
                conf,
                new DeploymentObserver(conf, new HttpFlinkRestClient(conf.get(REST_TIMEOUT)), kafka, clock),
                audit,
                events,
                new SummaryPublisher(client, conf, clock),
                new Remediator(client, events, conf, clock),
                metrics,
                new HistoryStore(conf.get(HISTORY_RETENTION)),
                clock);
        ReconcilerController controller = new ReconcilerController(client, conf, reconciler, clock);
        HealthServer server =
                new HealthServer(conf.get(HTTP_PORT), metrics::render, controller::live, controller::ready);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            if (audit != null) {
                audit.close();
            }
            controller.close();
            kafka.close();
            client.close();
            stop.countDown();
        }));
        controller.start();
        if (audit != null) {
            audit.start();
        }
        stop.await();
        return 0;
    }

    /** The environment variable that sets an option: its key upper-cased, other characters as '_'. */
    static String envVar(ConfigOption<?> option) {
        return ReconcilerOptions.envVar(option.key());
    }
}
