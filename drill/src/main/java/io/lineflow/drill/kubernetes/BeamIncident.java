package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.core.TimeChart;
import io.lineflow.reconciler.ReconcilerOptions;

import io.fabric8.kubernetes.api.model.Pod;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The incident the reconciler's duplicate detector exists for, reproduced under the operator
 * (issue 42): a Beam 2.56.0 {@code KafkaIO} pipeline on Beam's Flink runner, Flink 1.16.3, two
 * JobManagers with Kubernetes HA ({@code kustomize/incidents/beam-kafkaio}), inserting every
 * record it reads into PostgreSQL. The leading JobManager's pod is deleted; the standby restores
 * the job, and Beam's restored split enumerator hands every split out again while the readers
 * keep theirs: every record is inserted twice.
 *
 * <p>The scenario first proves that from PostgreSQL (every record's copies counted; if the double
 * read did not happen the scenario fails, because then it proves nothing), then requires: the
 * in-cluster reconciler reports {@code DUPLICATE_CONSUMPTION} for the deployment, the alert
 * reaches the Alertmanager, and once the deployment is annotated {@code lineflow.io/remediate:
 * "true"} the reconciler rolls its TaskManagers, every record is inserted once again and the
 * finding clears. It reports the time from the restore to the finding and from the finding to
 * healed, and removes its deployment at the end.
 */
final class BeamIncident {
    static final String NAME = "incident-beam";
    static final String TOPIC = "incident-beam-in";
    static final String TABLE = "incident_beam_records";
    static final String ALERT = "LineflowDuplicateConsumption";
    private static final String FINDING = "DUPLICATE_CONSUMPTION";
    private static final String REMEDIATED = "RemediationRestartedTaskManagers";
    private static final String REMEDIATION_ENABLED =
            ReconcilerOptions.envVar(ReconcilerOptions.REMEDIATION_ENABLED.key());
    private static final int PARTITIONS = 6;
    /** The overlay: the e2e overlay, the shipped remediation component and the incident's deployment. */
    private static final Path OVERLAY = Path.of("kustomize/incidents/beam-kafkaio");
    /** The node folder behind the claim the deployment keeps checkpoints and HA metadata on. */
    private static final Path STATE = Path.of("/tmp/lineflow-e2e-incident-beam");
    /** Flink's user in the images: the folder is its. */
    private static final int FLINK_UID = 9999;
    /** Doubled, and not merely lagging: the copies per record at the least to call it the incident. */
    private static final double DOUBLED = 1.8;

    private final FlinkCluster flink;
    private final Kubectl k8s;
    private final TableCheck.Database db;
    private final String bootstrap;
    private final ReconcilerMetrics reconciler;

    BeamIncident(FlinkCluster lineflow, Kubectl k8s, TableCheck.Database db, String bootstrap) {
        this.flink = lineflow.named(NAME);
        this.k8s = k8s;
        this.db = db;
        this.bootstrap = bootstrap;
        this.reconciler = new ReconcilerMetrics(lineflow.pods());
    }

    /**
     * The whole incident; what it measured goes to {@code result.monitoring}, what went wrong to
     * {@code result.error} (the scenario could not show what it must) or {@code result.problems}
     * (the reconciler or the remediation failed the incident).
     */
    void run(ScenarioResult result, AlertWatch alerts) throws Exception {
        prepare();
        try {
            // The reconciler's new pod first: once the incident's pods are applied, one of them
            // still waiting for a node could take the CPU request the old reconciler pod frees
            // (its Deployment recreates it), and the reconciler would wait instead (seen in CI).
            remediation(true);
            log("  %s", Kubectl.changed(k8s.run("apply", "-k", OVERLAY.toString())));
            reproduceAndHeal(result, alerts);
        } finally {
            remove();
            remediation(false);
        }
    }

    private void reproduceAndHeal(ScenarioResult result, AlertWatch alerts) throws InterruptedException {
        Await.orFail(
                Duration.ofMinutes(10),
                Duration.ofSeconds(2),
                NAME + "'s job RUNNING",
                () -> flink.deployment().jobState().orElse(null) == JobStatus.RUNNING);
        try (IncidentRecords producer = new IncidentRecords(bootstrap, TOPIC, PARTITIONS, db, TABLE)) {
            // Input first: a KafkaIO reader registers its partition's metric with its first
            // record. The pipeline reads from the earliest offset, so nothing sent before the
            // readers started is skipped.
            producer.start();
            Await.orFail(
                    Duration.ofMinutes(3),
                    Duration.ofSeconds(2),
                    "every partition of " + TOPIC + " read by a KafkaIO reader of " + NAME,
                    () -> flink.rest()
                            .readerPartitions(TOPIC)
                            .map(p -> p.size() == PARTITIONS)
                            .orElse(false));
            Await.orFail(
                    Duration.ofMinutes(2),
                    Duration.ofSeconds(2),
                    "a checkpoint of " + NAME + " completed while the input runs",
                    () -> flink.rest().completedCheckpoints().orElse(0L) > 0);
            IncidentRecords.Copies before = producer.copiesOver("before the failover");
            result.monitoring.add("incident: before the failover, " + before);
            if (before.perRecord() > 1.05) {
                throw new IllegalStateException("the incident's job read records twice before the failover: " + before);
            }
            long restoredAt = failover(result);
            IncidentRecords.Copies doubled = producer.copiesOver("after the restore");
            result.monitoring.add("incident: after the restore, " + doubled);
            if (doubled.perRecord() < DOUBLED) {
                throw new IllegalStateException("the double read did not reproduce (" + doubled
                        + "), so the scenario proves nothing about the detector");
            }
            long findingAt = awaitFinding(restoredAt, result);
            if (alerts != null) {
                if (alerts.awaitSeen(ALERT, Duration.ofMinutes(4))) {
                    note(result, "%s firing at the Alertmanager %s after the finding", ALERT, since(findingAt));
                } else {
                    result.problems.add(
                            "ALERT " + ALERT + " did not reach the Alertmanager within 4 min of the finding");
                }
            }
            remediate(findingAt, result, producer);
        }
    }

    /**
     * Switches remediation on or off in the reconciler, as the shipped remediation component does
     * (its Role comes with the incident's overlay), and waits for the reconciler's new pod.
     */
    private void remediation(boolean on) {
        k8s.run("set", "env", "deployment/" + ReconcilerOutputs.RECONCILER, REMEDIATION_ENABLED + "=" + on);
        k8s.run("rollout", "status", "deployment/" + ReconcilerOutputs.RECONCILER, "--timeout=180s");
        log("  remediation %s in the reconciler", on ? "on" : "off");
    }

    /** A fresh start: no deployment, state, topic or table of an earlier run. */
    private void prepare() throws Exception {
        remove();
        if (Files.exists(STATE)) {
            try (Stream<Path> files = Files.walk(STATE)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(STATE);
        Files.setPosixFilePermissions(STATE, PosixFilePermissions.fromString("rwxr-x---"));
        chownToFlink(STATE);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            try {
                admin.deleteTopics(Set.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            Await.orFail(Duration.ofMinutes(1), Duration.ofSeconds(1), "topic " + TOPIC + " deleted", () -> {
                try {
                    return !admin.listTopics().names().get().contains(TOPIC);
                } catch (InterruptedException | ExecutionException e) {
                    return false;
                }
            });
            admin.createTopics(Set.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (record text NOT NULL)");
        }
    }

    /** Numeric ids: the host need not know Flink's user. */
    private static void chownToFlink(Path path) throws IOException {
        var view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
        var lookup = path.getFileSystem().getUserPrincipalLookupService();
        view.setOwner(lookup.lookupPrincipalByName(String.valueOf(FLINK_UID)));
        view.setGroup(lookup.lookupPrincipalByGroupName(String.valueOf(FLINK_UID)));
    }

    /** Deletes the leading JobManager's pod; returns when the standby has restored the job (epoch ms). */
    private long failover(ScenarioResult result) {
        long runningBefore = flink.rest().runningSince().orElse(0L);
        Pod leader =
                flink.pods().leader().orElseThrow(() -> new IllegalStateException("no leading JobManager of " + NAME));
        long struck = System.currentTimeMillis();
        result.marks.add(new TimeChart.Mark(struck, "leading JobManager deleted"));
        k8s.run("delete", "pod", leader.getMetadata().getName(), "--wait=false");
        log("  deleted the leading JobManager %s", leader.getMetadata().getName());
        long[] restored = {0};
        Await.orFail(Duration.ofMinutes(5), Duration.ofSeconds(1), NAME + "'s job restored by a new leader", () -> {
            restored[0] = flink.pods()
                    .leader()
                    .filter(p -> !p.getMetadata()
                            .getName()
                            .equals(leader.getMetadata().getName()))
                    .flatMap(p -> flink.rest().runningSince())
                    .filter(since -> since > runningBefore)
                    .orElse(0L);
            return restored[0] > 0;
        });
        note(result, "the standby restored the job %s after the leader's pod was deleted", since(struck, restored[0]));
        return restored[0];
    }

    /** Until the reconciler's summary names the finding; returns when it did (epoch ms). */
    private long awaitFinding(long restoredAt, ScenarioResult result) {
        Await.orFail(
                Duration.ofMinutes(6),
                Duration.ofSeconds(2),
                "the in-cluster reconciler's " + FINDING + " on " + NAME,
                this::findingReported);
        long at = System.currentTimeMillis();
        note(
                result,
                "%s reported %s after the restore (target 2 min); duplicate ratio %s",
                FINDING,
                since(restoredAt, at),
                reconciler
                        .duplicateRatioOf(NAME)
                        .map(r -> String.format("%.2f", r))
                        .orElse("not exported"));
        return at;
    }

    private boolean findingReported() {
        return flink.reconciler()
                .health()
                .map(c -> String.valueOf(c.getData()).contains(FINDING))
                .orElse(false);
    }

    /**
     * Opts the deployment in to remediation; the reconciler must roll its TaskManagers, after which
     * every record is inserted once and the finding clears.
     */
    private void remediate(long findingAt, ScenarioResult result, IncidentRecords producer) {
        Set<String> before = Set.copyOf(taskManagers());
        long annotated = System.currentTimeMillis();
        k8s.run("annotate", "flinkdeployment/" + NAME, "lineflow.io/remediate=true", "--overwrite");
        if (!Await.until(
                Duration.ofMinutes(3),
                Duration.ofSeconds(2),
                () -> flink.reconciler().eventReported(REMEDIATED))) {
            result.problems.add("REMEDIATION the reconciler did not roll " + NAME + "'s TaskManagers within 3 min of"
                    + " the annotation (no " + REMEDIATED + " Event)");
            return;
        }
        note(result, "the reconciler rolled the TaskManagers %s after the annotation", since(annotated));
        if (!Await.until(Duration.ofMinutes(4), Duration.ofSeconds(2), () -> !findingReported())) {
            result.problems.add("REMEDIATION " + FINDING + " still reported 4 min after the TaskManagers were rolled");
            return;
        }
        long healed = System.currentTimeMillis();
        note(
                result,
                "%s cleared %s after the annotation, %s after the finding (target 1 min; the alert's wait included)",
                FINDING,
                since(annotated, healed),
                since(findingAt, healed));
        List<String> after = taskManagers();
        if (after.stream().anyMatch(before::contains)) {
            result.problems.add("REMEDIATION TaskManager pods " + before + " still there after the roll: " + after);
        }
        IncidentRecords.Copies healedCopies = producer.copiesOver("after the remediation");
        result.monitoring.add("incident: after the remediation, " + healedCopies);
        if (healedCopies.perRecord() > 1.05 || healedCopies.perRecord() < 0.95) {
            result.problems.add("REMEDIATION records are not inserted once each after the roll: " + healedCopies);
        }
    }

    private List<String> taskManagers() {
        return flink.pods().withLabels(flink.pods().labelsOf("taskmanager")).orElse(List.of()).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .map(p -> p.getMetadata().getName())
                .toList();
    }

    /** Deletes the incident's deployment and the remediation Role, and waits for its pods to go. */
    private void remove() {
        k8s.run("delete", "-k", OVERLAY.toString(), "--ignore-not-found", "--wait=true", "--timeout=180s");
        Await.orFail(
                Duration.ofMinutes(3),
                Duration.ofSeconds(2),
                NAME + "'s pods gone",
                () -> flink.pods()
                        .withLabels(Map.of("app", NAME))
                        .map(List::isEmpty)
                        .orElse(false));
    }

    private static String since(long from) {
        return since(from, System.currentTimeMillis());
    }

    private static String since(long from, long to) {
        return DrillReport.seconds(to - from);
    }

    private static void note(ScenarioResult result, String format, Object... args) {
        String line = String.format(format, args);
        result.monitoring.add("incident: " + line);
        log("  %s", line);
    }

    private static void log(String format, Object... args) {
        System.out.printf(format + "%n", args);
    }
}
