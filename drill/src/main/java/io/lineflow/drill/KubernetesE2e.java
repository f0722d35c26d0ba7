package io.lineflow.drill;

import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.kubernetes.KubernetesDrill;
import io.lineflow.drill.kubernetes.ScrapeDiscovery;
import io.lineflow.testing.CommandLines;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The host side of {@code make e2e} and {@code make e2e-drill}: the real Kafka, PostgreSQL and S3
 * server the job in the cluster uses, and the drill's scenarios and verifier against them ({@link
 * KubernetesDrill}). The Kubernetes side (cluster, operator, deploy, waiting for the
 * FlinkDeployment) is {@code scripts/e2e.sh}.
 *
 * <pre>
 * services --host IP --kafka-port P --postgres-port P --s3-port P --s3-classpath FILE
 *          --client-cidr CIDR --dir DIR --control-port P --prometheus-port P --alertmanager-port P
 *          [--topic T] [--partitions N]
 *     Kafka and PostgreSQL listening on loopback and IP (the cluster's bridge address); database
 *     and login {@code lineflow} with the password from LINEFLOW_JDBC_PASSWORD, reachable from
 *     CIDR only; the topic created. S3Proxy ({@link S3Server}, its own process from the classpath
 *     in FILE) on IP only, bucket {@code lineflow-e2e}, keys from LINEFLOW_S3_ACCESS_KEY and
 *     LINEFLOW_S3_SECRET_KEY, its data in its memory (see S3Server). Faults are asked for on 127.0.0.1:P (POST
 *     /kafka/restart, /postgres/stop, /postgres/start, /s3/stop, /s3/start; GET /s3/keys lists the
 *     bucket). Prometheus and the Alertmanager ({@link PrometheusServers}) on 127.0.0.1:P, scraping
 *     what the cluster's PodMonitors select and evaluating its PrometheusRules ({@link
 *     ScrapeDiscovery}, the kubeconfig from KUBECONFIG). Prints "e2e services
 *     ready" and runs until terminated.
 * verify --bootstrap H:P --jdbc-url URL --namespace NS --operator-namespace NS --kubectl PATH
 *        --overlay DIR --work DIR --services URL --cluster-script PATH --containerd-socket PATH
 *        [--scenarios steady|all|faults|ID,…] [--topic T] [--partitions N] [--devices N]
 *        [--windows N] [--pieces K] [--time-per-window D] [--report DIR]
 *        [--prometheus URL --alertmanager URL --dashboard FILE] [--operator-upgrade "COMMAND ARGS…"]
 *     Runs the scenarios one after another on the deployed job (see KubernetesScenario), each with
 *     the drill's deterministic input, checks the table cell by cell after each (login lineflow,
 *     password from LINEFLOW_JDBC_PASSWORD) and writes the report. With Prometheus, each scenario's
 *     alerts are checked (KubernetesDrill) and the dashboard's queries must all return data. Exit 0
 *     only when every scenario is exact and every control caught. The scenario operator-upgrade runs
 *     COMMAND (split at spaces) to upgrade the operator.
 * </pre>
 */
public final class KubernetesE2e {
    private static final String DATABASE = "lineflow";
    private static final String USER = "lineflow";
    private static final String BUCKET = "lineflow-e2e";

    private KubernetesE2e() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: KubernetesE2e services|verify --option value …");
        }
        List<String> rest = List.of(args).subList(1, args.length);
        switch (args[0]) {
            case "services":
                services(options(
                        rest,
                        "host",
                        "kafka-port",
                        "postgres-port",
                        "s3-port",
                        "s3-classpath",
                        "client-cidr",
                        "dir",
                        "control-port",
                        "prometheus-port",
                        "alertmanager-port",
                        "topic",
                        "partitions"));
                break;
            case "verify":
                System.exit(
                        verify(options(
                                        rest,
                                        "bootstrap",
                                        "jdbc-url",
                                        "namespace",
                                        "operator-namespace",
                                        "kubectl",
                                        "overlay",
                                        "work",
                                        "services",
                                        "cluster-script",
                                        "containerd-socket",
                                        "scenarios",
                                        "topic",
                                        "partitions",
                                        "devices",
                                        "windows",
                                        "pieces",
                                        "time-per-window",
                                        "report",
                                        "prometheus",
                                        "alertmanager",
                                        "dashboard",
                                        "operator-upgrade"))
                                ? 0
                                : 1);
                break;
            default:
                throw new IllegalArgumentException("unknown command '" + args[0] + "'; use services or verify");
        }
    }

    /** Kafka, PostgreSQL and the S3 server for the cluster, which a drill scenario may stop and start again. */
    private static final class Services {
        private final Path dir;
        private final String host;
        private final int kafkaPort;
        private final int postgresPort;
        private final String clientCidr;
        private final S3Server s3;
        private EmbeddedKafka kafka;
        private EmbeddedPostgresServer postgres;

        Services(Map<String, String> o) throws IOException {
            dir = Path.of(required(o, "dir")).toAbsolutePath();
            host = required(o, "host");
            kafkaPort = Integer.parseInt(required(o, "kafka-port"));
            postgresPort = Integer.parseInt(required(o, "postgres-port"));
            clientCidr = required(o, "client-cidr");
            Files.createDirectories(dir);
            s3 = new S3Server(
                    dir.resolve("s3"),
                    host,
                    Integer.parseInt(required(o, "s3-port")),
                    S3Server.classpath(Path.of(required(o, "s3-classpath"))),
                    BUCKET,
                    secret("LINEFLOW_S3_ACCESS_KEY", "the e2e S3 server's access key"),
                    secret("LINEFLOW_S3_SECRET_KEY", "the e2e S3 server's secret key"));
        }

        synchronized void startKafka() {
            kafka = EmbeddedKafka.start(dir.resolve("kafka"), host, kafkaPort);
        }

        synchronized void stopKafka() {
            kafka.close();
        }

        synchronized void startPostgres() {
            postgres = EmbeddedPostgresServer.startReachableFrom(
                    dir.resolve("postgres"), host, postgresPort, clientCidr, DATABASE, USER);
        }

        synchronized void stopPostgres() throws IOException {
            postgres.close();
        }
    }

    private static void services(Map<String, String> o) throws Exception {
        String password = password();
        Services services = new Services(o);
        services.startKafka();
        services.startPostgres();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            services.s3.close();
            services.stopKafka();
            try {
                services.stopPostgres();
            } catch (IOException e) {
                System.err.println("stopping PostgreSQL: " + e);
            }
        }));
        services.s3.start();
        PrometheusServers monitoring = new PrometheusServers(
                services.dir.resolve("monitoring"),
                Integer.parseInt(required(o, "prometheus-port")),
                Integer.parseInt(required(o, "alertmanager-port")));
        Runtime.getRuntime().addShutdownHook(new Thread(monitoring::close));
        monitoring.start();
        ScrapeDiscovery.ofKubeconfig(monitoring.discoveryDir(), monitoring.prometheus(), System.out::println)
                .startEvery(Duration.ofSeconds(5));
        services.postgres.createLogin(USER, password);
        services.kafka.createTopic(
                o.getOrDefault("topic", "device-events"), Integer.parseInt(o.getOrDefault("partitions", "4")));
        // Faults on request, for the drill; loopback only, and nothing but these actions.
        HttpServer control = HttpServer.create(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(required(o, "control-port"))),
                0);
        Map<String, Action> actions = Map.of(
                "/kafka/restart",
                        () -> {
                            services.stopKafka();
                            services.startKafka();
                        },
                "/postgres/stop", services::stopPostgres,
                "/postgres/start", services::startPostgres,
                "/s3/stop", services.s3::stop,
                "/s3/start", services.s3::start);
        control.createContext("/", exchange -> {
            Action action = actions.get(exchange.getRequestURI().getPath());
            int status;
            String body;
            if (action == null || !exchange.getRequestMethod().equals("POST")) {
                status = 404;
                body = "POST one of " + actions.keySet();
            } else {
                try {
                    action.run();
                    status = 200;
                    body = "done";
                    System.out.println("control: " + exchange.getRequestURI().getPath() + " done");
                } catch (Exception e) {
                    status = 500;
                    body = e.toString();
                }
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        // What the bucket holds, one key a line: scripts/e2e.sh checks the retained checkpoints.
        control.createContext("/s3/keys", exchange -> {
            int status;
            String body;
            try {
                body = String.join("\n", services.s3.keys()) + "\n";
                status = 200;
            } catch (RuntimeException e) {
                body = e.toString();
                status = 500;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        control.start();
        System.out.println("e2e services ready: kafka " + services.kafka.bootstrapServers() + ", postgresql "
                + services.host + ":" + services.postgresPort + "/" + DATABASE + ", s3 " + services.s3.endpoint()
                + "/" + BUCKET + ", prometheus " + monitoring.prometheus() + ", alertmanager "
                + monitoring.alertmanager() + ", control http://127.0.0.1:"
                + o.get("control-port"));
        Thread.currentThread().join();
    }

    /** A fault the services process carries out. */
    private interface Action {
        void run() throws Exception;
    }

    private static boolean verify(Map<String, String> o) throws Exception {
        String url = required(o, "jdbc-url");
        String password = password();
        KubernetesDrill.Settings settings = new KubernetesDrill.Settings(
                required(o, "bootstrap"),
                o.getOrDefault("topic", "device-events"),
                Integer.parseInt(o.getOrDefault("partitions", "4")),
                Integer.parseInt(o.getOrDefault("devices", "8")),
                Integer.parseInt(o.getOrDefault("windows", "12")),
                Integer.parseInt(o.getOrDefault("pieces", "20")),
                CommandLines.duration("time-per-window", o.getOrDefault("time-per-window", "5 s"))
                        .toMillis(),
                required(o, "namespace"),
                required(o, "operator-namespace"),
                required(o, "kubectl"),
                Path.of(required(o, "overlay")),
                Path.of(required(o, "work")),
                URI.create(required(o, "services")),
                required(o, "cluster-script"),
                required(o, "containerd-socket"),
                o.containsKey("operator-upgrade")
                        ? List.of(o.get("operator-upgrade").trim().split("\\s+"))
                        : List.of(),
                o.containsKey("prometheus")
                        ? new KubernetesDrill.Monitoring(
                                URI.create(o.get("prometheus")),
                                URI.create(required(o, "alertmanager")),
                                Path.of(required(o, "dashboard")))
                        : null);
        List<ScenarioResult> results = new KubernetesDrill(
                        settings, () -> DriverManager.getConnection(url, USER, password))
                .run(o.getOrDefault("scenarios", "steady"));
        if (o.containsKey("report")) {
            Path report = Path.of(o.get("report"));
            Files.createDirectories(report);
            System.out.println("Report: "
                    + DrillReport.writeHtml(
                                    results,
                                    report,
                                    "Kubernetes: the job deployed by the Flink Kubernetes Operator on a real node, Kafka and "
                                            + "PostgreSQL on the host. Faults go through the cluster (pods deleted, a container's "
                                            + "process killed, the operator's pod deleted, upgrades applied with kustomize, the node's "
                                            + "kubelet and containerd restarted). The healthy scenarios run one after another on one "
                                            + "deployment and one table, which must be exact after each, earlier rows included; the "
                                            + "controls run last on fresh deployments. Recovery is the time from the fault to the "
                                            + "operator's status.jobStatus.state RUNNING again; the output gap, to the first window "
                                            + "row written after that.")
                            .toAbsolutePath());
        }
        return results.stream().allMatch(ScenarioResult::passed);
    }

    private static String password() {
        return secret("LINEFLOW_JDBC_PASSWORD", "the e2e database login");
    }

    /** The secret in environment variable {@code name}, which {@code what} needs; never printed. */
    private static String secret(String name, String what) {
        String p = System.getenv(name);
        if (p == null || p.isEmpty()) {
            throw new IllegalArgumentException(name + " is not set: " + what + " needs it");
        }
        return p;
    }

    private static Map<String, String> options(List<String> args, String... known) {
        return CommandLines.parse(args, List.of(known));
    }

    private static String required(Map<String, String> o, String key) {
        String v = o.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing option --" + key);
        }
        return v;
    }
}
