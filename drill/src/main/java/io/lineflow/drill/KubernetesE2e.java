package io.lineflow.drill;

import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;
import io.lineflow.testing.ExpectedWindows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The host side of {@code make e2e}: the real Kafka and PostgreSQL the job in the cluster uses,
 * and the drill's verifier against them. The Kubernetes side (cluster, operator, deploy, waiting
 * for the FlinkDeployment) is {@code scripts/e2e.sh}.
 *
 * <pre>
 * services --host IP --kafka-port P --postgres-port P --client-cidr CIDR --dir DIR
 *          [--topic T] [--partitions N]
 *     Kafka and PostgreSQL listening on loopback and IP (the cluster's bridge address); database
 *     and login {@code lineflow} with the password from LINEFLOW_JDBC_PASSWORD, reachable from
 *     CIDR only; the topic created. Prints "e2e services ready" and runs until terminated.
 * verify --bootstrap H:P --jdbc-url URL [--topic T] [--partitions N] [--devices N] [--windows N]
 *        [--pieces K] [--millis-per-window MS] [--report DIR]
 *        [--fault none|jm-pod-delete|tm-pod-kill --namespace NS [--kubectl PATH]]
 *     Produces the drill's deterministic input, waits for the table and compares it cell by cell
 *     (login lineflow, password from LINEFLOW_JDBC_PASSWORD). Exit 0 only when exact. With a
 *     fault, halfway through the input the pod is deleted through kubectl (KUBECONFIG), and the
 *     timeline is measured: fault → the operator's status RUNNING again, fault → the first new row.
 * </pre>
 */
public final class KubernetesE2e {
    private static final String DATABASE = "lineflow";
    private static final String USER = "lineflow";

    private KubernetesE2e() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: KubernetesE2e services|verify --option value …");
        }
        List<String> rest = List.of(args).subList(1, args.length);
        switch (args[0]) {
            case "services":
                services(options(rest, "--host", "--kafka-port", "--postgres-port", "--client-cidr", "--dir", "--topic",
                        "--partitions"));
                break;
            case "verify":
                System.exit(verify(options(rest, "--bootstrap", "--jdbc-url", "--topic", "--partitions", "--devices",
                        "--windows", "--pieces", "--millis-per-window", "--report", "--fault", "--namespace",
                        "--kubectl")) ? 0 : 1);
                break;
            default:
                throw new IllegalArgumentException("unknown command '" + args[0] + "'; use services or verify");
        }
    }

    private static void services(Map<String, String> o) throws Exception {
        Path dir = Path.of(required(o, "--dir")).toAbsolutePath();
        String host = required(o, "--host");
        String password = password();
        Files.createDirectories(dir);
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), host, Integer.parseInt(required(o, "--kafka-port")));
        EmbeddedPostgresServer pg = EmbeddedPostgresServer.startReachableFrom(dir.resolve("postgres"), host,
                Integer.parseInt(required(o, "--postgres-port")), required(o, "--client-cidr"), DATABASE, USER);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            try {
                pg.close();
            } catch (IOException e) {
                System.err.println("stopping PostgreSQL: " + e);
            }
        }));
        pg.createLogin(USER, password);
        kafka.createTopic(o.getOrDefault("--topic", "device-events"), Integer.parseInt(o.getOrDefault("--partitions", "4")));
        System.out.println("e2e services ready: kafka " + kafka.bootstrapServers() + ", postgresql " + host + ":"
                + o.get("--postgres-port") + "/" + DATABASE);
        Thread.currentThread().join();
    }

    private static boolean verify(Map<String, String> o) throws Exception {
        String url = required(o, "--jdbc-url");
        String password = password();
        String topic = o.getOrDefault("--topic", "device-events");
        int partitions = Integer.parseInt(o.getOrDefault("--partitions", "4"));
        int devices = Integer.parseInt(o.getOrDefault("--devices", "8"));
        int windows = Integer.parseInt(o.getOrDefault("--windows", "12"));
        int pieces = Integer.parseInt(o.getOrDefault("--pieces", "20"));
        long millisPerWindow = Long.parseLong(o.getOrDefault("--millis-per-window", "1000"));
        TableCheck.Database db = () -> DriverManager.getConnection(url, USER, password);

        DeterministicInput input = DeterministicInput.generate(
                devices, windows, pieces, ScenarioRunner.WINDOW, ScenarioRunner.T0, partitions);
        input.addWatermarkTicks(ScenarioRunner.T0 + (windows + 1) * ScenarioRunner.WINDOW + ScenarioRunner.WINDOW / 2);
        PodFault fault = PodFault.byId(o.getOrDefault("--fault", "none"));
        ScenarioResult result = new ScenarioResult(Scenario.steady(
                fault == PodFault.NONE ? "kubernetes:steady" : "kubernetes:" + fault.id + "@50%"));
        long began = System.currentTimeMillis();
        AtomicLong rejectedByKafka = new AtomicLong();
        System.out.printf("producing %d records (%d devices × %d windows × %d pieces) to %s%n",
                input.records.size(), devices, windows, pieces, topic);
        int injectIndex = fault == PodFault.NONE ? -1 : input.records.size() / 2;
        CountDownLatch atInjection = new CountDownLatch(1);
        Thread producer = new Thread(() -> TableCheck.produce(required(o, "--bootstrap"), topic, input,
                windows * millisPerWindow, injectIndex, atInjection, rejectedByKafka), "e2e-producer");
        producer.start();
        if (fault != PodFault.NONE) {
            atInjection.await();
            Kubernetes k8s = new Kubernetes(o.getOrDefault("--kubectl", "kubectl"), required(o, "--namespace"));
            long injectedAt = System.currentTimeMillis();
            System.out.printf("injecting %s after %d of %d records: %s%n", fault.id, injectIndex, input.records.size(),
                    k8s.run(fault.kubectlArgs).trim());
            timeline(k8s, db, injectedAt, result);
            System.out.printf("operator status RUNNING again after %s, first new window row after %s%n",
                    result.recoveryMillis == null ? "(never left RUNNING)" : ScenarioRunner.seconds(result.recoveryMillis),
                    result.outputGapMillis == null ? "—" : ScenarioRunner.seconds(result.outputGapMillis));
        }
        producer.join();
        if (rejectedByKafka.get() > 0) {
            throw new IllegalStateException("Kafka did not accept " + rejectedByKafka.get() + " input records");
        }
        long produced = System.currentTimeMillis();
        Map<String, DeviceWindowStats> expected = ExpectedWindows.of(input.counted, ScenarioRunner.WINDOW);
        Map<String, DeviceWindowStats> actual = TableCheck.awaitTable(db, expected, Duration.ofMinutes(5));
        TableCheck.verify(db, input, expected, actual, result);
        result.durationMillis = System.currentTimeMillis() - began;
        System.out.printf("table settled %s after the last record%n", ScenarioRunner.seconds(System.currentTimeMillis() - produced));
        result.problems.stream().limit(20).forEach(p -> System.out.println("  " + p));
        List<ScenarioResult> results = List.of(result);
        System.out.print(DrillReport.summary(results));
        if (o.containsKey("--report")) {
            Path report = Path.of(o.get("--report"));
            Files.createDirectories(report);
            System.out.println("Report: " + DrillReport.writeHtml(results, report).toAbsolutePath());
        }
        return result.passed();
    }

    /**
     * Fault → the operator's status back to RUNNING (null if it never left RUNNING within 30 s),
     * and fault → the first window row written after the job runs again.
     */
    private static void timeline(Kubernetes k8s, TableCheck.Database db, long injectedAt, ScenarioResult result)
            throws InterruptedException {
        long deadline = injectedAt + Duration.ofMinutes(5).toMillis();
        boolean left = false;
        long outputAfter = injectedAt;
        while (System.currentTimeMillis() < deadline) {
            long now = System.currentTimeMillis();
            String state = k8s.jobState();
            if (!state.equals("RUNNING")) {
                left = true;
            } else if (left && result.recoveryMillis == null) {
                result.recoveryMillis = now - injectedAt;
                outputAfter = now;
            }
            boolean settled = result.recoveryMillis != null || (!left && now - injectedAt > 30_000);
            Long first = settled ? TableCheck.firstRowWrittenAfter(db, outputAfter) : null;
            if (first != null) {
                result.outputGapMillis = first - injectedAt;
                return;
            }
            Thread.sleep(1000);
        }
    }

    /** A fault made through Kubernetes itself, as an operator or a node would suffer it. */
    private enum PodFault {
        NONE("none", List.of()),
        /** The JobManager pod deleted: its Deployment starts a new one, Kubernetes HA restores the job. */
        JM_POD_DELETE("jm-pod-delete", List.of("delete", "pod", "-l", "app=lineflow,component=jobmanager", "--wait=false")),
        /** A TaskManager pod force-deleted: the JobManager asks for a new one and restores the job. */
        TM_POD_KILL("tm-pod-kill", List.of("delete", "pod", "-l", "app=lineflow,component=taskmanager",
                "--grace-period=0", "--force", "--wait=false"));

        final String id;
        final List<String> kubectlArgs;

        PodFault(String id, List<String> kubectlArgs) {
            this.id = id;
            this.kubectlArgs = kubectlArgs;
        }

        static PodFault byId(String id) {
            for (PodFault f : values()) {
                if (f.id.equals(id)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("unknown --fault '" + id + "'; known: none, jm-pod-delete, tm-pod-kill");
        }
    }

    /** kubectl against the cluster of {@code KUBECONFIG}, in one namespace. */
    private record Kubernetes(String kubectl, String namespace) {
        String run(List<String> args) {
            List<String> command = new ArrayList<>(List.of(kubectl, "-n", namespace));
            command.addAll(args);
            return ManagedProcess.runToEnd(command, Path.of("."), Duration.ofSeconds(60));
        }

        /** The operator's view of the job: {@code status.jobStatus.state} of the FlinkDeployment. */
        String jobState() {
            try {
                return run(List.of("get", "flinkdeployment", "lineflow", "-o", "jsonpath={.status.jobStatus.state}")).trim();
            } catch (IllegalStateException e) {
                return "UNKNOWN";
            }
        }
    }

    private static String password() {
        String p = System.getenv("LINEFLOW_JDBC_PASSWORD");
        if (p == null || p.isEmpty()) {
            throw new IllegalArgumentException("LINEFLOW_JDBC_PASSWORD is not set: the e2e database login needs it");
        }
        return p;
    }

    private static Map<String, String> options(List<String> args, String... known) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            if (!List.of(known).contains(args.get(i)) || i + 1 >= args.size()) {
                throw new IllegalArgumentException("expected one of " + List.of(known) + " followed by a value, got '"
                        + args.get(i) + "'");
            }
            o.put(args.get(i), args.get(i + 1));
        }
        return o;
    }

    private static String required(Map<String, String> o, String key) {
        String v = o.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing option " + key);
        }
        return v;
    }
}
