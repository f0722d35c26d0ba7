package io.lineflow.drill.kubernetes;

import static io.lineflow.drill.kubernetes.FlinkCluster.JM;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.core.TimeChart;
import io.lineflow.drill.core.Timeline;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;

import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;

import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The restart drill on Kubernetes: scenarios one after another on the job the operator runs, each
 * with the local drill's deterministic input (its own range of windows and ids), a fault injected
 * halfway through it through the cluster ({@link KubernetesBackend}), the recovery timeline and the
 * table checked cell by cell by {@link TableCheck}, the same verifier as the local drill's.
 *
 * <p>The healthy scenarios share one deployment and one table, as a production job lives through
 * one incident after another: after each, the whole table must be exact (rows of earlier
 * scenarios included), and the in-cluster reconciler must report the deployment HEALTHY again.
 * The negative controls run last, each on a fresh deployment with a pitfall applied through a
 * kustomize overlay, and must be caught.
 */
public final class KubernetesDrill {
    /** What the drill runs against; see {@code KubernetesE2e} for the options that set it. */
    public record Settings(
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
            String clusterScript,
            String containerdSocket,
            List<String> operatorUpgrade,
            Monitoring monitoring) {}

    /**
     * The e2e Prometheus and Alertmanager ({@code PrometheusServers}) and the shipped dashboard;
     * null runs the drill without them.
     */
    public record Monitoring(URI prometheus, URI alertmanager, Path dashboard) {}

    /** How long after a leader failover the reconciler must report no duplicate consumption. */
    private static final Duration DUPLICATE_WATCH = Duration.ofMinutes(5);

    private static final String FAILED_CHECKPOINTS = "lineflow_reconciler_checkpoints_failed";

    /** From a scenario's end until the alerts it must raise have fired (rule `for`, scrapes, evaluation). */
    private static final Duration ALERT_DEADLINE = Duration.ofMinutes(4);

    /** From a healthy scenario's end until every alert but the restart's has cleared. */
    private static final Duration ALERT_CLEAR = Duration.ofMinutes(3);

    /**
     * From the last healthy scenario's end until every alert has resolved: the restart alert looks
     * back 10 min (LineflowJobRestarted), plus its 30 s steps, rule evaluation and the scrapes.
     */
    private static final Duration ALERTS_RESOLVE = Duration.ofMinutes(12);

    /**
     * Until the continuous audit has completed a pass that began after a moment (the e2e
     * overlay's audit period is 30 s; a pass reads the drill's whole topic in a few seconds).
     */
    private static final Duration AUDIT_DEADLINE = Duration.ofMinutes(2);

    /** Until every dashboard query returns a series (rates need two scrapes 30 s apart). */
    private static final Duration DASHBOARD_DEADLINE = Duration.ofMinutes(3);

    private static final Timeline.Pace PACE =
            new Timeline.Pace(Duration.ofSeconds(1), Duration.ofMinutes(8), Duration.ofMinutes(5));

    /**
     * The no-checkpoints control's: its job comes back with no offsets to resume from and starts at
     * the topic's end, after the input sent while it was down, so no new row ever comes. The
     * timeline is kept for the recovery (fault → RUNNING, about a minute); waiting 8 minutes for a
     * row would only make the run longer.
     */
    private static final Timeline.Pace CONTROL_PACE =
            new Timeline.Pace(Duration.ofSeconds(1), Duration.ofMinutes(3), Duration.ofMinutes(1));

    private final Settings s;
    private final TableCheck.Database db;
    private final FlinkCluster flink;
    private final Kubectl k8s;
    private final Overlays overlays;
    private final KubernetesBackend backend;
    private final ReconcilerMetrics reconciler;
    private final PrometheusApi prometheus;
    private boolean dashboardChecked;
    /** Every record sent so far and every rejection, over all scenarios: the table's answer. */
    private final List<WindowRecount.Input> sent = new ArrayList<>();

    private final Map<RejectReason, Long> rejections = new EnumMap<>(RejectReason.class);
    private final Set<String> reported = new HashSet<>();
    /** The first window of the next scenario's input. */
    private long nextStart = TableCheck.T0;

    public KubernetesDrill(Settings settings, TableCheck.Database db) {
        this.s = settings;
        this.db = db;
        this.flink = FlinkCluster.ofKubeconfig(settings.namespace(), settings.operatorNamespace());
        this.k8s = new Kubectl(settings.kubectl(), settings.namespace());
        this.overlays = new Overlays(settings.work(), settings.overlay());
        this.reconciler = new ReconcilerMetrics(flink);
        this.prometheus = settings.monitoring() == null
                ? null
                : new PrometheusApi(
                        settings.monitoring().prometheus(),
                        settings.monitoring().alertmanager());
        this.backend = new KubernetesBackend(
                flink,
                k8s,
                new Kubectl(settings.kubectl(), settings.operatorNamespace()),
                new HttpServices(settings.services()),
                db,
                overlays,
                settings.clusterScript(),
                settings.containerdSocket(),
                KubernetesBackend.Holds.DRILL,
                settings.operatorUpgrade(),
                System.out::println);
    }

    /**
     * Runs the scenarios of {@code list} (ids, {@code all} or {@code faults}; see {@link
     * KubernetesScenario#parse}) one after another, printing the summary after each.
     *
     * @throws IllegalArgumentException for an unknown id, before anything runs
     */
    public List<ScenarioResult> run(String list) throws Exception {
        List<ScenarioResult> results = new ArrayList<>();
        List<KubernetesScenario> scenarios = KubernetesScenario.parse(list);
        int lastHealthy = -1;
        for (int i = 0; i < scenarios.size(); i++) {
            lastHealthy = scenarios.get(i).isControl() ? lastHealthy : i;
        }
        for (int i = 0; i < scenarios.size(); i++) {
            results.add(run(scenarios.get(i), i == lastHealthy));
            System.out.print(DrillReport.summary(results));
        }
        return results;
    }

    /** @param lastHealthy after it, every alert must resolve ({@link #alertsResolve}) */
    private ScenarioResult run(KubernetesScenario scenario, boolean lastHealthy) throws Exception {
        ScenarioResult result = new ScenarioResult(scenario.scenario());
        long began = System.currentTimeMillis();
        AlertWatch alerts = null;
        try {
            // Inside the try: an Alertmanager that does not answer is this scenario's error, not the run's end.
            alerts = prometheus == null ? null : AlertWatch.start(prometheus);
            if (scenario.isControl()) {
                freshDeployment(scenario.control(), result);
            }
            if (scenario.incident() != null) {
                incident(scenario, result, alerts);
            } else {
                produceAndInject(scenario, result);
            }
            if (scenario.control() == KubernetesScenario.Control.ADDITIVE_SINK) {
                auditCaughtDoubling(System.currentTimeMillis(), result);
            }
            if (alerts != null) {
                alertsRaised(scenario, alerts, result);
                if (!scenario.isControl() && !dashboardChecked) {
                    dashboardChecked = true;
                    dashboardAnswers(result);
                }
                if (scenario.equals(KubernetesScenario.STEADY)) {
                    handEditAudited(result);
                }
                if (lastHealthy) {
                    alertsResolve(alerts, result);
                }
            }
        } catch (RuntimeException e) {
            result.error = e.getMessage();
            e.printStackTrace();
        } finally {
            if (alerts != null) {
                alerts.close();
                result.monitoring.add(0, "alerts active during the scenario (from its start): " + alerts.timeline());
                chart(result, began, System.currentTimeMillis());
            }
        }
        result.durationMillis = System.currentTimeMillis() - began;
        return result;
    }

    /** Another team's job beside lineflow's: the reconciler must report it and its remediation heal it. */
    private void incident(KubernetesScenario scenario, ScenarioResult result, AlertWatch alerts) {
        try {
            switch (scenario.incident()) {
                case BEAM_KAFKAIO -> new BeamIncident(flink, k8s, db, s.bootstrap()).run(result, alerts);
            }
        } catch (Exception e) {
            result.error = scenario.id() + " could not be carried out: " + e.getMessage();
            log("%s", result.error);
        }
        log("%s: %s", scenario.id(), result.verdict());
    }

    private void produceAndInject(KubernetesScenario scenario, ScenarioResult result) throws Exception {
        // Each scenario its own windows, after the previous scenario's watermark ticks. A leader
        // failover is struck as early as usual, and the input goes on for the duplicate watch.
        int windows = s.windows() + (scenario.fault() == Fault.JM_LEADER_DELETE ? watchWindows() : 0);
        long start = nextStart;
        nextStart += (long) (windows + 4) * TableCheck.WINDOW;
        DeterministicInput input =
                DeterministicInput.generate(s.devices(), windows, s.pieces(), TableCheck.WINDOW, start, s.partitions());
        input.addWatermarkTicks(start + (windows + 1) * TableCheck.WINDOW + TableCheck.WINDOW / 2);
        boolean injects = scenario.scenario().injects();
        // Halfway through the middle window, not at a window boundary: the window being counted
        // when the fault strikes is half read, so a job that loses its state cannot hide it (a
        // boundary fault leaves the no-checkpoints control nothing to lose once the window before
        // has fired).
        int injectIndex = injects ? input.middleOf(s.windows() / 2) : -1;
        CountDownLatch atInjection = new CountDownLatch(1);
        // The no-checkpoints control holds the rest of the input until its fault has taken effect
        // (see inject); every other fault meets input that keeps arriving.
        CountDownLatch resume =
                new CountDownLatch(scenario.control() == KubernetesScenario.Control.NO_CHECKPOINTS ? 1 : 0);
        AtomicLong rejectedByKafka = new AtomicLong();
        log(
                "%s: producing %d records over %d s",
                scenario.id(), input.records.size(), windows * s.millisPerWindow() / 1000);
        Thread producer = new Thread(
                () -> TableCheck.produce(
                        s.bootstrap(),
                        s.topic(),
                        input,
                        windows * s.millisPerWindow(),
                        injectIndex,
                        atInjection,
                        resume,
                        rejectedByKafka),
                "e2e-producer");
        producer.start();
        if (injects) {
            atInjection.await();
            try {
                String jmBefore = flink.podUids(JM);
                String jobBefore = flink.jobId();
                String holderBefore = flink.leaderHolder();
                double failedBefore = reconciler.gauge(FAILED_CHECKPOINTS).orElse(0.0);
                long injectedAt = System.currentTimeMillis();
                result.marks.add(new TimeChart.Mark(injectedAt, scenario.id()));
                Thread leadership = watchLeadership(holderBefore, injectedAt, result);
                Long recoveredAt;
                try {
                    recoveredAt = inject(scenario);
                } finally {
                    resume.countDown();
                }
                Timeline.measure(
                        backend,
                        scenario.control() == KubernetesScenario.Control.NO_CHECKPOINTS ? CONTROL_PACE : PACE,
                        injectedAt,
                        recoveredAt,
                        result);
                leadership.interrupt();
                leadership.join();
                if (result.leaderMillis != null) {
                    log(
                            "%s: a new JobManager leader after %s",
                            scenario.id(), DrillReport.seconds(result.leaderMillis));
                }
                log(
                        "%s: job RUNNING again after %s, first new window row after %s",
                        scenario.id(),
                        result.recoveryMillis == null
                                ? "(never left RUNNING)"
                                : DrillReport.seconds(result.recoveryMillis),
                        result.outputGapMillis == null ? "—" : DrillReport.seconds(result.outputGapMillis));
                if (scenario.fault() != null) {
                    afterRecovery(scenario, result, jmBefore, jobBefore, holderBefore, injectedAt, failedBefore);
                }
            } catch (RuntimeException e) {
                // The input is in Kafka all the same: the table is still checked, so that the
                // next scenarios are judged against everything that was sent.
                result.error = scenario.id() + " could not be carried out: " + e.getMessage();
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
        TableCheck.Expectation expected = new TableCheck.Expectation(TableCheck.expected(sent), rejections);
        TableCheck.Observed observed = TableCheck.await(db, expected, Duration.ofMinutes(5));
        TableCheck.verify(observed, result, reported);
        log(
                "%s: tables read %s after the last record: %s",
                scenario.id(), DrillReport.seconds(System.currentTimeMillis() - produced), observed.waited());
        if (!scenario.isControl()) {
            reconcilerHealthy(result);
            auditExact(scenario, result, produced);
        }
        log("%s: %s", scenario.id(), result.verdict());
        result.problems.stream().limit(20).forEach(p -> System.out.println("  " + p));
    }

    /**
     * The alerts of {@code scenario}, once those it must raise had their time to fire and, after a
     * healthy scenario, the rest theirs to clear ({@link AlertWatch#problems}). A control that
     * fails here is an error, not damage caught.
     */
    private void alertsRaised(KubernetesScenario scenario, AlertWatch alerts, ScenarioResult result) {
        for (String alert : scenario.raises()) {
            alerts.awaitSeen(alert, ALERT_DEADLINE);
        }
        Set<String> seen = alerts.seen();
        Set<String> left = scenario.isControl()
                ? Set.of()
                : alerts.awaitOnly(Set.of(KubernetesScenario.JOB_RESTARTED), ALERT_CLEAR);
        List<String> problems =
                AlertWatch.problems(scenario, alerts.atStart(), seen, left, ALERT_DEADLINE, ALERT_CLEAR);
        problems.forEach(p -> log("%s: %s", scenario.id(), p));
        if (scenario.isControl()) {
            if (!problems.isEmpty() && result.error == null) {
                result.error = String.join("; ", problems);
            }
        } else {
            result.problems.addAll(problems);
        }
    }

    /**
     * Once the faults stop, every alert resolves: the restart alert raised by the scenarios' restores
     * clears ten minutes after the last one, and nothing else is left firing. Checked after the last
     * healthy scenario of a run (a control leaves its damage, and its alert, in place).
     */
    private void alertsResolve(AlertWatch alerts, ScenarioResult result) {
        long from = System.currentTimeMillis();
        Set<String> left = alerts.awaitOnly(Set.of(), ALERTS_RESOLVE);
        String took = DrillReport.seconds(System.currentTimeMillis() - from);
        if (left.isEmpty()) {
            result.monitoring.add("every alert resolved " + took + " after the last healthy scenario's checks");
            log("  every alert resolved %s after the last healthy scenario's checks", took);
        } else {
            result.problems.add("ALERT still firing " + ALERTS_RESOLVE.toMinutes()
                    + " min after the last healthy scenario: " + left);
        }
    }

    /**
     * Every query of the shipped Grafana dashboard returns at least one series from the e2e
     * Prometheus, which scraped what the shipped PodMonitors select: a query with a wrong metric or
     * label name returns nothing, and this fails.
     */
    private void dashboardAnswers(ScenarioResult result) {
        List<String> answers = new ArrayList<>();
        List<String> empty = new ArrayList<>();
        Await.until(DASHBOARD_DEADLINE, Duration.ofSeconds(10), () -> {
            answers.clear();
            empty.clear();
            for (DashboardQueries.Query q : DashboardQueries.of(s.monitoring().dashboard(), prometheus::labelValues)) {
                List<PrometheusApi.Series> series = prometheus.query(q.expr());
                if (series.isEmpty()) {
                    empty.add("DASHBOARD '" + q.panel() + "' returns no series: " + q.expr());
                }
                answers.add("dashboard '" + q.panel() + "': " + q.expr() + " = "
                        + (series.isEmpty()
                                ? "no series"
                                : series.stream()
                                        .map(x -> String.format("%.3g", x.value()))
                                        .toList()));
            }
            return empty.isEmpty();
        });
        result.monitoring.addAll(answers);
        answers.forEach(a -> log("  %s", a));
        result.problems.addAll(empty);
    }

    /** What Prometheus saw during the scenario, for the report: a chart per series. */
    private static final Map<String, String> SERIES = Map.of(
            "rows written per second (the window sink's records in)",
            "sum(rate(flink_taskmanager_job_task_operator_numRecordsIn{operator_name=~\"device_window_stats.*\"}[1m]))",
            "Kafka lag (records the source has not read)",
            "sum(flink_taskmanager_job_task_operator_pendingRecords)",
            "last checkpoint's duration (s)",
            "max(flink_jobmanager_job_lastCheckpointDuration) / 1000",
            "job restarts (numRestarts of the leading JobManager)",
            "max(flink_jobmanager_job_numRestarts)");

    private void chart(ScenarioResult result, long began, long ended) {
        result.startedAt = began;
        for (Map.Entry<String, String> q : new java.util.TreeMap<>(SERIES).entrySet()) {
            try {
                result.series.put(q.getKey(), prometheus.range(q.getValue(), began, ended, Duration.ofSeconds(15)));
            } catch (RuntimeException e) {
                result.monitoring.add("no chart of " + q.getKey() + ": " + e.getMessage());
            }
        }
    }

    /** The input's windows that span the duplicate watch, at the drill's pace. */
    private int watchWindows() {
        return (int) ((DUPLICATE_WATCH.toMillis() + s.millisPerWindow() - 1) / s.millisPerWindow());
    }

    /**
     * Notes in {@code result} when the JobManagers' leader election lock names a holder other
     * than {@code before}: a new leader, also the same pod's restarted JobManager.
     */
    private Thread watchLeadership(String before, long injectedAt, ScenarioResult result) {
        Thread t = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        String holder = flink.leaderHolder();
                        if (!holder.isEmpty() && !holder.equals(before)) {
                            result.leaderMillis = System.currentTimeMillis() - injectedAt;
                            return;
                        }
                        try {
                            Thread.sleep(500);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "e2e-leadership");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Strikes the scenario's fault; the no-checkpoints control loses both pods its own way. */
    private Long inject(KubernetesScenario scenario) throws Exception {
        if (scenario.fault() == null) {
            backend.loseJobManagerAndTaskManager();
            return null;
        }
        if (scenario.control() == KubernetesScenario.Control.ADDITIVE_SINK) {
            awaitRowSinceCheckpoint();
        }
        return backend.strike(scenario.fault());
    }

    /**
     * Holds the additive-sink control's strike until a window row has been written since the
     * latest completed checkpoint: only such a row is written again by the replay, and added to.
     * Struck right after a checkpoint, before the next window fires, the control would have nothing
     * to double and pass by chance (seen: the table exact, the control NOT DETECTED).
     */
    private void awaitRowSinceCheckpoint() {
        RowSinceCheckpoint since = new RowSinceCheckpoint();
        Await.orFail(
                Duration.ofMinutes(1),
                Duration.ofMillis(500),
                "a window row written since the latest completed checkpoint",
                () -> since.observe(flink.completedCheckpoints().orElse(-1L), rowCount()));
        log("  a window row written since checkpoint %d: striking now", since.checkpoint());
    }

    private long rowCount() {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM device_window_stats");
                java.sql.ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    /**
     * Checks that the fault did what it claims: the operator's restart left the job alone, an
     * upgrade runs the new image at the new parallelism.
     */
    private void afterRecovery(
            KubernetesScenario scenario,
            ScenarioResult result,
            String jmBefore,
            String jobBefore,
            String holderBefore,
            long injectedAt,
            double failedBefore) {
        switch (scenario.fault()) {
            case S3_OUTAGE -> {
                double[] failed = {failedBefore};
                boolean seen = Await.until(Duration.ofMinutes(2), Duration.ofSeconds(5), () -> {
                    failed[0] = reconciler.gauge(FAILED_CHECKPOINTS).orElse(failedBefore);
                    return failed[0] > failedBefore;
                });
                if (seen) {
                    log(
                            "  the reconciler counts %.0f failed checkpoints, %.0f before the outage",
                            failed[0], failedBefore);
                } else {
                    result.problems.add("RECONCILER reported no failed checkpoint for the S3 outage ("
                            + FAILED_CHECKPOINTS + " stayed " + failedBefore + ")");
                }
            }
            case JM_LEADER_DELETE, JM_LEADER_KILL -> {
                if (result.leaderMillis == null) {
                    result.problems.add("LEADER no new JobManager leader after the leader's " + scenario.id());
                }
                if (scenario.fault() == Fault.JM_LEADER_DELETE) {
                    ReconcilerMetrics.Seen seen = reconciler.watch(
                            injectedAt + DUPLICATE_WATCH.toMillis(), Duration.ofSeconds(10), System.out::println);
                    seen.problem().ifPresent(result.problems::add);
                }
            }
            case JM_STANDBY_DELETE -> {
                if (result.recoveryMillis != null) {
                    result.problems.add("JOB deleting the standby JobManager interrupted the job");
                }
                if (!flink.leaderHolder().equals(holderBefore) || !flink.jobId().equals(jobBefore)) {
                    result.problems.add("JOB deleting the standby JobManager changed the leader or the job");
                }
            }
            case OPERATOR_UPGRADE -> {
                // Not a failure either way (the table decides that), but the user must know.
                boolean untouched = result.recoveryMillis == null
                        && flink.podUids(JM).equals(jmBefore)
                        && flink.jobId().equals(jobBefore);
                String said = "operator upgraded (now " + flink.operatorImages() + "): "
                        + (untouched
                                ? "the job was not restarted (same JobManager pods and job id, never left RUNNING)"
                                : "the job was restarted (JobManager pods or job id changed, or it left RUNNING)");
                result.monitoring.add(said);
                log("  %s", said);
            }
            case OPERATOR_RESTART -> {
                if (result.recoveryMillis != null) {
                    result.problems.add("JOB the operator's restart interrupted the job");
                }
                if (!flink.podUids(JM).equals(jmBefore) || !flink.jobId().equals(jobBefore)) {
                    result.problems.add("JOB the operator's restart replaced the JobManager pod or the job");
                }
            }
            case LAST_STATE_UPGRADE -> expectDeployed(result, KubernetesBackend.Release.LAST_STATE);
            case SAVEPOINT_UPGRADE -> {
                expectDeployed(result, KubernetesBackend.Release.SAVEPOINT);
                String savepoint = flink.upgradeSavepoint();
                if (savepoint.isEmpty()) {
                    result.problems.add("UPGRADE the operator recorded no savepoint for the savepoint upgrade");
                } else {
                    log("  restored from savepoint %s", savepoint);
                }
            }
            // The table, the timeline and the reconciler's health say all there is to say of these.
            case JM_POD_DELETE, JM_KILL, TM_POD_KILL, DB_OUTAGE, KAFKA_RESTART, SUSPEND_RESUME, NODE_RESTART -> {}
            // No default: a new fault does not compile until it says what is checked after it.
            case TM_KILL,
                    JM_FAILOVER,
                    FULL_RESTART,
                    UPGRADE,
                    PG_KILL,
                    KAFKA_KILL,
                    PARTITION_DB,
                    PARTITION_KAFKA,
                    PARTITION_JM ->
                throw new IllegalStateException(scenario.id() + " is not a fault of the Kubernetes drill");
        }
    }

    private void expectDeployed(ScenarioResult result, KubernetesBackend.Release release) {
        String image = release.image();
        int parallelism = release.parallelism();
        String running = flink.images(JM);
        FlinkDeploymentSpec spec = flink.reconciledSpec().orElse(null);
        if (!running.contains(image)
                || spec == null
                || spec.getJob() == null
                || spec.getJob().getParallelism() != parallelism) {
            result.problems.add("UPGRADE expected image " + image + " at parallelism " + parallelism
                    + ", the JobManager runs " + running + " and the deployed spec is "
                    + (spec == null
                            ? "none"
                            : spec.getImage() + " at parallelism "
                                    + (spec.getJob() == null
                                            ? "none"
                                            : spec.getJob().getParallelism())));
        }
    }

    /**
     * A fresh deployment for a negative control: the current one deleted (the operator removes its
     * HA metadata with it), then the overlay with the control's pitfall applied. Reading from the
     * latest offset, as the controls do, so the earlier scenarios' input is not read again.
     */
    private void freshDeployment(KubernetesScenario.Control control, ScenarioResult result) throws Exception {
        List<Overlays.Patch> patches = new ArrayList<>();
        List<String> args = new ArrayList<>(List.of("--config", "/etc/lineflow/lineflow.properties"));
        if (control == KubernetesScenario.Control.ADDITIVE_SINK) {
            args.addAll(List.of("--lineflow.sink.mode", "ADDITIVE"));
        } else {
            // The seed pitfall: no checkpoint interval in the spec, and checkpointing off in the job.
            patches.add(Overlays.Patch.remove("spec", "flinkConfiguration", "execution.checkpointing.interval"));
            args.addAll(List.of("--lineflow.checkpointing.enabled", "false"));
        }
        args.addAll(List.of("--lineflow.kafka.starting-offsets", "LATEST"));
        patches.add(Overlays.Patch.replace(args, "spec", "job", "args"));
        Path dir = overlays.write(control.id.replace(':', '-'), patches);
        k8s.run(
                "delete",
                "flinkdeployment/" + FlinkCluster.NAME,
                "--ignore-not-found",
                "--wait=true",
                "--timeout=180s");
        Await.orFail(
                Duration.ofMinutes(3),
                Duration.ofSeconds(2),
                "the old JobManager and TaskManager pods gone",
                () -> flink.pods(Map.of("app", FlinkCluster.NAME))
                        .map(List::isEmpty)
                        .orElse(false));
        long applied = System.currentTimeMillis();
        log("  %s", Kubectl.changed(k8s.run("apply", "-k", dir.toString())));
        if (control == KubernetesScenario.Control.NO_CHECKPOINTS) {
            seedPitfallReported(applied, result);
        }
        Await.orFail(
                Duration.ofMinutes(10),
                Duration.ofSeconds(2),
                "the control's job RUNNING",
                () -> "RUNNING".equals(flink.jobState()));
        // Reading from the latest offset: input sent before a reader has sought to the end of its
        // partition would be skipped, and the control would be caught for the wrong reason.
        Await.orFail(
                Duration.ofMinutes(2),
                Duration.ofSeconds(2),
                "every partition of " + s.topic() + " given to a source reader of the control's job",
                () -> flink.readerPartitions(s.topic())
                        .map(p -> p.size() == s.partitions())
                        .orElse(false));
    }

    /**
     * The reconciler's one-pass promise: checkpointing turned off in the spec is reported as an
     * Event on the FlinkDeployment and in the summary ConfigMap within one pass (the e2e overlay's
     * interval is 10 s; 30 s allowed for the API round trips).
     */
    private void seedPitfallReported(long applied, ScenarioResult result) {
        boolean reportedInTime = Await.until(
                Duration.ofMillis(applied + 30_000 - System.currentTimeMillis()), Duration.ofSeconds(1), () -> {
                    boolean event = flink.eventReported("CHECKPOINTING_DISABLED");
                    String summary =
                            flink.health().map(c -> String.valueOf(c.getData())).orElse("");
                    return event && summary.contains("CHECKPOINTING_DISABLED");
                });
        if (reportedInTime) {
            log(
                    "  the reconciler reported CHECKPOINTING_DISABLED (Event and summary) %s after the apply",
                    DrillReport.seconds(System.currentTimeMillis() - applied));
        } else {
            result.error =
                    "the reconciler did not report CHECKPOINTING_DISABLED as an Event and in its summary within 30 s";
        }
    }

    /**
     * The reconciler's continuous audit, which recounts the table from Kafka on its own (rules'
     * one recount), must find it exact too: a pass completed after {@code since} with rows judged
     * and none missing, extra or wrong.
     */
    private void auditExact(KubernetesScenario scenario, ScenarioResult result, long since) {
        Optional<ReconcilerMetrics.Audit> audit = auditAfter(since);
        if (audit.isEmpty()) {
            result.problems.add("AUDIT no continuous audit completed within " + AUDIT_DEADLINE.toMinutes()
                    + " min of the input's end");
            return;
        }
        ReconcilerMetrics.Audit a = audit.get();
        result.monitoring.add("continuous audit after the scenario: " + a);
        log("  %s: the continuous audit: %s", scenario.id(), a);
        if (a.mismatched() > 0 || a.matched() == 0) {
            result.problems.add("AUDIT the continuous audit disagrees with the exact table: " + a);
        }
    }

    /**
     * A row of the table changed by hand is reported by the next audit (the e2e overlay's period
     * is 30 s), and the table put back is exact again in the audit after that. This runs once,
     * after the steady scenario's checks, and leaves the table and the reconciler as it found them.
     */
    private void handEditAudited(ScenarioResult result) throws SQLException {
        long edited;
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("UPDATE device_window_stats SET pieces_produced ="
                        + " pieces_produced + ? WHERE (device_id, window_start) = (SELECT device_id, window_start"
                        + " FROM device_window_stats ORDER BY window_start, device_id LIMIT 1)")) {
            s.setInt(1, 1);
            edited = System.currentTimeMillis();
            if (s.executeUpdate() != 1) {
                result.problems.add("AUDIT the hand edit found no row to change");
                return;
            }
            Optional<ReconcilerMetrics.Audit> seen = auditAfter(edited);
            String took = DrillReport.seconds(System.currentTimeMillis() - edited);
            if (seen.isEmpty() || seen.get().wrong() != 1) {
                result.problems.add("AUDIT a row changed by hand was not reported as one wrong row by the audit"
                        + " that followed: " + seen.map(Object::toString).orElse("no audit completed"));
            } else {
                result.monitoring.add("a row changed by hand: reported by the audit " + took + " later: " + seen.get());
                log("  a row changed by hand: the audit %s later reports %s", took, seen.get());
            }
            s.setInt(1, -1);
            s.executeUpdate();
        }
        long restored = System.currentTimeMillis();
        Optional<ReconcilerMetrics.Audit> back = auditAfter(restored);
        if (back.isEmpty() || back.get().mismatched() > 0) {
            result.problems.add("AUDIT the row put back was not exact again in the next audit: "
                    + back.map(Object::toString).orElse("no audit completed"));
        }
        reconcilerHealthy(result);
    }

    /**
     * The additive sink's damage is wrong rows (counts added to, not replaced); the continuous
     * audit must report them itself, in an audit that began after the verifier read the table
     * (an earlier one may predate the replay). Missing rows would be another control's: a lost count.
     */
    private void auditCaughtDoubling(long since, ScenarioResult result) {
        Optional<ReconcilerMetrics.Audit> a = auditAfter(since);
        if (a.isPresent() && a.get().wrong() > 0) {
            result.monitoring.add("the continuous audit caught the additive sink: " + a.get());
            log("  the continuous audit caught the additive sink: %s", a.get());
        } else if (result.error == null) {
            result.error = "the continuous audit did not report the additive sink's wrong rows: "
                    + a.map(Object::toString).orElse("no audit completed");
        }
    }

    /** The first audit that began after {@code since} (epoch ms), polled until {@link #AUDIT_DEADLINE}. */
    private Optional<ReconcilerMetrics.Audit> auditAfter(long since) {
        AtomicReference<ReconcilerMetrics.Audit> seen = new AtomicReference<>();
        Await.until(AUDIT_DEADLINE, Duration.ofSeconds(2), () -> {
            reconciler.audit().filter(a -> a.began() * 1000 > since).ifPresent(seen::set);
            return seen.get() != null;
        });
        return Optional.ofNullable(seen.get());
    }

    /** After a healthy scenario the in-cluster reconciler must say HEALTHY again (a pass every 10 s). */
    private void reconcilerHealthy(ScenarioResult result) {
        String[] status = {""};
        boolean healthy = Await.until(Duration.ofSeconds(120), Duration.ofSeconds(3), () -> {
            status[0] = flink.healthStatus();
            return status[0].equals("HEALTHY");
        });
        if (!healthy) {
            result.problems.add("RECONCILER reports '" + status[0] + "', not HEALTHY, 120 s after the table settled");
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf(format + "%n", args);
    }
}
