package io.lineflow.drill;

import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.testing.Commands;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;

import org.apache.flink.util.TimeUtils;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The restart drill on Kubernetes: scenarios one after another on the job the operator runs, each
 * with the local drill's deterministic input (its own range of windows and ids), a fault injected
 * halfway through it through the cluster, the recovery timeline and the table checked cell by cell
 * by {@link TableCheck}, the same verifier as the local drill's.
 *
 * <p>The healthy scenarios share one deployment and one table, as a production job lives through
 * one incident after another: after each, the whole table must be exact (rows of earlier
 * scenarios included), and the in-cluster reconciler must report the deployment HEALTHY again.
 * The negative controls run last, each on a fresh deployment with a pitfall applied through a
 * kustomize overlay, and must be caught.
 */
final class KubernetesDrill {
    /** What the drill runs against; see {@link KubernetesE2e} for the options that set it. */
    record Settings(
            String bootstrap,
            String topic,
            int partitions,
            int devices,
            int windows,
            int pieces,
            long millisPerWindow,
            String namespace,
            String operatorNamespace,
            String kubectl,
            Path overlay,
            Path work,
            URI services,
            String clusterScript) {}

    private static final String FD = "flinkdeployment/lineflow";
    private static final String JM = "app=lineflow,component=jobmanager";
    private static final String TM = "app=lineflow,component=taskmanager";

    private final Settings s;
    private final TableCheck.Database db;
    private final Kubectl k8s;
    private final Kubectl operator;
    private final HttpClient http = HttpClient.newHttpClient();
    /** Every record sent so far and every rejection, over all scenarios: the table's answer. */
    private final List<WindowRecount.Input> sent = new ArrayList<>();

    private final Map<RejectReason, Long> rejections = new EnumMap<>(RejectReason.class);
    private final Set<String> reported = new HashSet<>();
    private int scenarios;

    KubernetesDrill(Settings settings, TableCheck.Database db) {
        this.s = settings;
        this.db = db;
        this.k8s = new Kubectl(settings.kubectl(), settings.namespace());
        this.operator = new Kubectl(settings.kubectl(), settings.operatorNamespace());
    }

    ScenarioResult run(KubeFault fault) throws Exception {
        ScenarioResult result = new ScenarioResult(Scenario.onKubernetes(fault));
        long began = System.currentTimeMillis();
        try {
            if (fault.control) {
                freshDeployment(fault, result);
            }
            produceAndInject(fault, result);
        } catch (RuntimeException e) {
            result.error = e.getMessage();
            e.printStackTrace();
        }
        result.durationMillis = System.currentTimeMillis() - began;
        return result;
    }

    private void produceAndInject(KubeFault fault, ScenarioResult result) throws Exception {
        // Each scenario its own windows, after the previous scenario's watermark ticks.
        long start = ScenarioRunner.T0 + (long) scenarios++ * (s.windows() + 4) * ScenarioRunner.WINDOW;
        DeterministicInput input = DeterministicInput.generate(
                s.devices(), s.windows(), s.pieces(), ScenarioRunner.WINDOW, start, s.partitions());
        input.addWatermarkTicks(start + (s.windows() + 1) * ScenarioRunner.WINDOW + ScenarioRunner.WINDOW / 2);
        // Halfway through the middle window, not at a window boundary: the window being counted
        // when the fault strikes is half read, so a job that loses its state cannot hide it (a
        // boundary fault leaves the no-checkpoints control nothing to lose once the window before
        // has fired).
        int injectIndex = fault == KubeFault.STEADY ? -1 : input.middleOf(s.windows() / 2);
        CountDownLatch atInjection = new CountDownLatch(1);
        // The no-checkpoints control holds the rest of the input until its fault has taken effect
        // (see inject); every other fault meets input that keeps arriving.
        CountDownLatch resume = new CountDownLatch(fault == KubeFault.CONTROL_NO_CHECKPOINTS ? 1 : 0);
        AtomicLong rejectedByKafka = new AtomicLong();
        log(
                "%s: producing %d records over %d s",
                fault.id, input.records.size(), s.windows() * s.millisPerWindow() / 1000);
        Thread producer = new Thread(
                () -> TableCheck.produce(
                        s.bootstrap(),
                        s.topic(),
                        input,
                        s.windows() * s.millisPerWindow(),
                        injectIndex,
                        atInjection,
                        resume,
                        rejectedByKafka),
                "e2e-producer");
        producer.start();
        if (fault != KubeFault.STEADY) {
            atInjection.await();
            try {
                String jmBefore = k8s.podUid(JM);
                String jobBefore = k8s.jobId();
                long injectedAt = System.currentTimeMillis();
                Long recoveredAt;
                try {
                    recoveredAt = inject(fault);
                } finally {
                    resume.countDown();
                }
                timeline(injectedAt, recoveredAt, result);
                log(
                        "%s: operator status RUNNING again after %s, first new window row after %s",
                        fault.id,
                        result.recoveryMillis == null
                                ? "(never left RUNNING)"
                                : ScenarioRunner.seconds(result.recoveryMillis),
                        result.outputGapMillis == null ? "—" : ScenarioRunner.seconds(result.outputGapMillis));
                afterRecovery(fault, result, jmBefore, jobBefore);
            } catch (RuntimeException e) {
                // The input is in Kafka all the same: the table is still checked, so that the
                // next scenarios are judged against everything that was sent.
                result.error = fault.id + " could not be carried out: " + e.getMessage();
                log("%s", result.error);
            }
        }
        producer.join();
        if (rejectedByKafka.get() > 0) {
            throw new IllegalStateException("Kafka did not accept " + rejectedByKafka.get() + " input records");
        }
        long produced = System.currentTimeMillis();
        sent.addAll(ExpectedWindows.inputs(input, produced));
        input.rejections.forEach((reason, n) -> rejections.merge(reason, n, Long::sum));
        Map<String, Row> expected = TableCheck.expected(sent);
        Map<String, Row> actual = TableCheck.awaitTable(db, expected, Duration.ofMinutes(5));
        TableCheck.verify(db, rejections, expected, actual, result, reported);
        log(
                "%s: table settled %s after the last record",
                fault.id, ScenarioRunner.seconds(System.currentTimeMillis() - produced));
        if (!fault.control) {
            reconcilerHealthy(result);
        }
        log("%s: %s", fault.id, result.verdict());
        result.problems.stream().limit(20).forEach(p -> System.out.println("  " + p));
    }

    /**
     * Makes the fault. Faults that change the spec (suspend/resume, upgrades) wait for the
     * operator to have carried the change out and return when the job runs again; the others
     * return null, and the timeline watches the recovery.
     */
    private Long inject(KubeFault fault) throws Exception {
        switch (fault) {
            case JM_POD_DELETE ->
                log("  %s", k8s.run("delete", "pod", "-l", JM, "--wait=false").trim());
            case CONTROL_NO_CHECKPOINTS -> {
                // The JobManager and the TaskManager lost together, as with a node, and the rest of
                // the input sent only once both processes are gone. A TaskManager left running reads
                // that input and writes its windows before it notices its JobManager is gone, and
                // hides the loss: a forced delete returns before the kubelet has stopped the
                // container, and a CI run passed the control that way. A delete that waits returns
                // once the kubelet has reported the containers stopped.
                long asked = System.currentTimeMillis();
                log(
                        "  %s",
                        k8s.run(
                                        "delete",
                                        "pod",
                                        "-l",
                                        "app=lineflow,component in (jobmanager,taskmanager)",
                                        "--grace-period=1",
                                        "--wait=true",
                                        "--timeout=80s")
                                .trim());
                log(
                        "  both gone after %s; the rest of the input follows",
                        ScenarioRunner.seconds(System.currentTimeMillis() - asked));
            }
            case JM_KILL -> {
                String pod = k8s.pod(JM);
                k8s.run("exec", pod, "-c", "flink-main-container", "--", "bash", "-c", "kill 1");
                log("  kill 1 in pod %s's Flink container", pod);
            }
            case TM_POD_KILL, CONTROL_ADDITIVE_SINK ->
                log(
                        "  %s",
                        k8s.run("delete", "pod", "-l", TM, "--grace-period=0", "--force", "--wait=false")
                                .trim());
            case OPERATOR_RESTART -> {
                log(
                        "  %s",
                        operator.run(
                                        "delete",
                                        "pod",
                                        "-l",
                                        "app.kubernetes.io/name=flink-kubernetes-operator",
                                        "--wait=false")
                                .trim());
                // A line per pod: "<deletionTimestamp>|<Ready>"; the new pod has no deletion time.
                await(
                        Duration.ofMinutes(3),
                        "the operator's new pod Ready",
                        () -> operator.get(
                                        "pod",
                                        "-l",
                                        "app.kubernetes.io/name=flink-kubernetes-operator",
                                        "-o",
                                        "jsonpath={range .items[*]}{.metadata.deletionTimestamp}|{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}")
                                .orElse("")
                                .lines()
                                .anyMatch("|True"::equals));
            }
            case DB_OUTAGE -> {
                services("postgres/stop");
                log("  PostgreSQL stopped for 15 s");
                Pause.sleep(15_000);
                services("postgres/start");
                log("  PostgreSQL back");
            }
            case KAFKA_RESTART -> {
                services("kafka/restart");
                log("  Kafka broker restarted");
            }
            case SUSPEND_RESUME -> {
                k8s.run("patch", FD, "--type", "merge", "-p", "{\"spec\":{\"job\":{\"state\":\"suspended\"}}}");
                await(
                        Duration.ofMinutes(3),
                        "lifecycle SUSPENDED",
                        () -> "SUSPENDED".equals(k8s.fd("{.status.lifecycleState}")));
                log("  suspended; resuming in 10 s");
                Pause.sleep(10_000);
                k8s.run("patch", FD, "--type", "merge", "-p", "{\"spec\":{\"job\":{\"state\":\"running\"}}}");
                return deployed("\"state\":\"running\"");
            }
            case LAST_STATE_UPGRADE -> {
                return upgrade("last-state-upgrade", "lineflow-job:e2e-upgrade-1", 3, "last-state");
            }
            case SAVEPOINT_UPGRADE -> {
                return upgrade("savepoint-upgrade", "lineflow-job:e2e-upgrade-2", 2, "savepoint");
            }
            case NODE_RESTART ->
                log(
                        "  %s",
                        Commands.run(Path.of("."), Duration.ofMinutes(10), List.of(s.clusterScript(), "restart-node"))
                                .trim());
            default -> throw new IllegalStateException("nothing to inject for " + fault.id);
        }
        return null;
    }

    /**
     * Waits until the operator has reconciled a spec containing {@code specPart} (it may take a
     * minute to start: it finishes what it is doing first), has deployed it and the job runs;
     * returns that moment.
     */
    private long deployed(String specPart) {
        await(
                Duration.ofMinutes(10),
                "the operator to deploy the spec with " + specPart,
                () -> k8s.fd("{.status.reconciliationStatus.lastReconciledSpec}")
                                .contains(specPart)
                        && List.of("DEPLOYED", "STABLE").contains(k8s.fd("{.status.lifecycleState}"))
                        && "RUNNING".equals(k8s.jobState()));
        return System.currentTimeMillis();
    }

    /**
     * Checks that the fault did what it claims: the operator's restart left the job alone, an
     * upgrade runs the new image at the new parallelism.
     */
    private void afterRecovery(KubeFault fault, ScenarioResult result, String jmBefore, String jobBefore) {
        switch (fault) {
            case OPERATOR_RESTART -> {
                if (result.recoveryMillis != null) {
                    result.problems.add("JOB the operator's restart interrupted the job");
                }
                if (!k8s.podUid(JM).equals(jmBefore) || !k8s.jobId().equals(jobBefore)) {
                    result.problems.add("JOB the operator's restart replaced the JobManager pod or the job");
                }
            }
            case LAST_STATE_UPGRADE -> expectDeployed(result, "lineflow-job:e2e-upgrade-1", 3);
            case SAVEPOINT_UPGRADE -> {
                expectDeployed(result, "lineflow-job:e2e-upgrade-2", 2);
                String savepoint = k8s.fd("{.status.jobStatus.upgradeSavepointPath}");
                String history = k8s.fd("{.status.jobStatus.savepointInfo.lastSavepoint.location}");
                if (savepoint.isEmpty() && history.isEmpty()) {
                    result.problems.add("UPGRADE the operator recorded no savepoint for the savepoint upgrade");
                } else {
                    log("  restored from savepoint %s", history.isEmpty() ? savepoint : history);
                }
            }
            default -> {}
        }
    }

    private void expectDeployed(ScenarioResult result, String image, int parallelism) {
        String running = k8s.get("pod", "-l", JM, "-o", "jsonpath={.items[*].spec.containers[0].image}")
                .orElse("");
        String spec = k8s.fd("{.status.reconciliationStatus.lastReconciledSpec}");
        if (!running.contains(image) || !spec.contains("\"parallelism\":" + parallelism)) {
            result.problems.add("UPGRADE expected image " + image + " at parallelism " + parallelism
                    + ", the JobManager runs " + running + " and the deployed spec is " + spec);
        }
    }

    /**
     * The same overlay a user applies, with the image and parallelism of a new release; applied
     * with {@code kubectl apply -k}, as a GitOps sync would, and the operator upgrades.
     */
    private long upgrade(String name, String image, int parallelism, String upgradeMode) throws IOException {
        Path dir = overlay(
                name,
                List.of(
                        "- op: replace\n  path: /spec/image\n  value: " + image,
                        "- op: replace\n  path: /spec/job/parallelism\n  value: " + parallelism,
                        "- op: replace\n  path: /spec/job/upgradeMode\n  value: " + upgradeMode));
        log("  %s", changed(k8s.run("apply", "-k", dir.toString())));
        return deployed("\"image\":\"" + image + "\"");
    }

    /**
     * A fresh deployment for a negative control: the current one deleted (the operator removes its
     * HA metadata with it), then the overlay with the control's pitfall applied. Reading from the
     * latest offset, as the controls do, so the earlier scenarios' input is not read again.
     */
    private void freshDeployment(KubeFault control, ScenarioResult result) throws Exception {
        List<String> patches = new ArrayList<>();
        if (control == KubeFault.CONTROL_ADDITIVE_SINK) {
            patches.add(
                    "- op: replace\n  path: /spec/job/args\n  value: [\"--config\", \"/etc/lineflow/lineflow.properties\","
                            + " \"--lineflow.sink.mode\", \"ADDITIVE\", \"--lineflow.kafka.starting-offsets\", \"LATEST\"]");
        } else {
            // The seed pitfall: no checkpoint interval in the spec, and checkpointing off in the job.
            patches.add("- op: remove\n  path: /spec/flinkConfiguration/execution.checkpointing.interval");
            patches.add(
                    "- op: replace\n  path: /spec/job/args\n  value: [\"--config\", \"/etc/lineflow/lineflow.properties\","
                            + " \"--lineflow.checkpointing.enabled\", \"false\", \"--lineflow.kafka.starting-offsets\", \"LATEST\"]");
        }
        Path dir = overlay(control.id.replace(':', '-'), patches);
        k8s.run("delete", FD, "--ignore-not-found", "--wait=true", "--timeout=180s");
        await(
                Duration.ofMinutes(3),
                "the old JobManager and TaskManager pods gone",
                () -> k8s.get("pod", "-l", "app=lineflow", "-o", "name")
                        .map(String::isBlank)
                        .orElse(false));
        long applied = System.currentTimeMillis();
        log("  %s", changed(k8s.run("apply", "-k", dir.toString())));
        if (control == KubeFault.CONTROL_NO_CHECKPOINTS) {
            seedPitfallReported(applied, result);
        }
        await(Duration.ofMinutes(10), "the control's job RUNNING", () -> "RUNNING".equals(k8s.jobState()));
        // Reading from the latest offset: give the source time to be assigned its partitions.
        Pause.sleep(20_000);
    }

    /**
     * The reconciler's one-pass promise: checkpointing turned off in the spec is reported as an
     * Event on the FlinkDeployment and in the summary ConfigMap within one pass (the e2e overlay's
     * interval is 10 s; 30 s allowed for the API round trips).
     */
    private void seedPitfallReported(long applied, ScenarioResult result) {
        long deadline = applied + 30_000;
        while (System.currentTimeMillis() < deadline) {
            boolean event = k8s.get(
                            "events",
                            "--field-selector",
                            "reason=CHECKPOINTING_DISABLED,involvedObject.name=lineflow",
                            "-o",
                            "name")
                    .map(o -> !o.isBlank())
                    .orElse(false);
            String summary = k8s.get("configmap", "lineflow-lineflow-health", "-o", "jsonpath={.data}")
                    .orElse("");
            if (event && summary.contains("CHECKPOINTING_DISABLED")) {
                log(
                        "  the reconciler reported CHECKPOINTING_DISABLED (Event and summary) %s after the apply",
                        ScenarioRunner.seconds(System.currentTimeMillis() - applied));
                return;
            }
            Pause.sleep(1000);
        }
        result.error =
                "the reconciler did not report CHECKPOINTING_DISABLED as an Event and in its summary within 30 s";
    }

    /** After a healthy scenario the in-cluster reconciler must say HEALTHY again (a pass every 10 s). */
    private void reconcilerHealthy(ScenarioResult result) {
        long deadline = System.currentTimeMillis() + 120_000;
        String status = "";
        while (System.currentTimeMillis() < deadline) {
            status = k8s.get(
                            "configmap",
                            "lineflow-lineflow-health",
                            "-o",
                            "jsonpath={.metadata.annotations.lineflow\\.io/status}")
                    .orElse("");
            if (status.equals("HEALTHY")) {
                return;
            }
            Pause.sleep(3000);
        }
        result.problems.add("RECONCILER reports '" + status + "', not HEALTHY, 120 s after the table settled");
    }

    /**
     * Fault → the operator's status back to RUNNING (null if it never left RUNNING within 30 s;
     * {@code recoveredAt} when the injection waited for it), and fault → the first window row
     * written after the job runs again.
     */
    private void timeline(long injectedAt, Long recoveredAt, ScenarioResult result) {
        long deadline = injectedAt + Duration.ofMinutes(8).toMillis();
        boolean left = recoveredAt != null;
        long outputAfter = injectedAt;
        if (recoveredAt != null) {
            result.recoveryMillis = recoveredAt - injectedAt;
            outputAfter = recoveredAt;
            deadline = recoveredAt + Duration.ofMinutes(5).toMillis();
        }
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
            Pause.sleep(1000);
        }
    }

    /** What {@code kubectl apply} changed, on one line. */
    private static String changed(String applyOutput) {
        return applyOutput
                .lines()
                .filter(l -> !l.endsWith(" unchanged"))
                .reduce((a, b) -> a + "; " + b)
                .orElse("nothing changed");
    }

    /** A kustomization on top of the e2e overlay with JSON patches on the FlinkDeployment. */
    private Path overlay(String name, List<String> patches) throws IOException {
        Path dir = s.work().resolve("overlays").resolve(name).toAbsolutePath();
        Files.createDirectories(dir);
        StringBuilder k = new StringBuilder()
                .append("# Written by the Kubernetes drill: the e2e overlay as a new release would change it.\n")
                .append("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ")
                .append(dir.relativize(s.overlay().toAbsolutePath()))
                .append("\npatches:\n")
                .append("  - target: {kind: FlinkDeployment, name: lineflow}\n    patch: |-\n");
        for (String p : patches) {
            k.append(p.indent(6));
        }
        Files.writeString(dir.resolve("kustomization.yaml"), k.toString());
        return dir;
    }

    private void services(String action) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(s.services().resolve("/" + action))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofMinutes(3))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("services " + action + ": HTTP " + r.statusCode() + " " + r.body());
        }
    }

    private static void await(Duration timeout, String what, BooleanSupplier done) {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(what + ": not within " + timeout.toSeconds() + " s");
            }
            Pause.sleep(2000);
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf(format + "%n", args);
    }

    /**
     * How long a kubectl call may run before it is killed: 90 s, plus the wait it was given
     * ({@code --timeout=180s} on a delete that waits).
     */
    static Duration processLimit(String... kubectlArgs) {
        Duration wait = Arrays.stream(kubectlArgs)
                .filter(a -> a.startsWith("--timeout="))
                .map(a -> TimeUtils.parseDuration(a.substring("--timeout=".length())))
                .findFirst()
                .orElse(Duration.ZERO);
        return Duration.ofSeconds(90).plus(wait);
    }

    /** kubectl against the cluster of {@code KUBECONFIG}, in one namespace. */
    private record Kubectl(String kubectl, String namespace) {
        String run(String... args) {
            List<String> command = new ArrayList<>(List.of(kubectl, "-n", namespace, "--request-timeout=30s"));
            command.addAll(List.of(args));
            return Commands.run(Path.of("."), processLimit(args), command);
        }

        /** {@code kubectl get …}, empty when it fails (e.g. the API server is restarting). */
        Optional<String> get(String... args) {
            List<String> a = new ArrayList<>(List.of("get"));
            a.addAll(List.of(args));
            try {
                return Optional.of(run(a.toArray(String[]::new)).trim());
            } catch (Commands.CommandFailed e) {
                return Optional.empty();
            }
        }

        String fd(String jsonpath) {
            return get(FD, "-o", "jsonpath=" + jsonpath).orElse("");
        }

        /** The operator's view of the job: {@code status.jobStatus.state} of the FlinkDeployment. */
        String jobState() {
            return get(FD, "-o", "jsonpath={.status.jobStatus.state}").orElse("UNKNOWN");
        }

        String jobId() {
            return fd("{.status.jobStatus.jobId}");
        }

        String pod(String selector) {
            String name = get("pod", "-l", selector, "-o", "jsonpath={.items[0].metadata.name}")
                    .orElse("");
            if (name.isEmpty()) {
                throw new IllegalStateException("no pod " + selector + " in " + namespace);
            }
            return name;
        }

        String podUid(String selector) {
            return get("pod", "-l", selector, "-o", "jsonpath={.items[*].metadata.uid}")
                    .orElse("");
        }
    }
}
