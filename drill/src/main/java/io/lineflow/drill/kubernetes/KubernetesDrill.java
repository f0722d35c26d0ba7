package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.ScenarioRun;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.core.Timeline;
import io.lineflow.testing.DeterministicInput;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

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

    private static final Consumer<String> LOG = System.out::println;

    private final Settings s;
    private final TableCheck.Database db;
    private final FlinkCluster flink;
    private final Kubectl k8s;
    private final KubernetesBackend backend;
    private final AfterFault.Cluster cluster;
    private final ReconcilerHealth health;
    private final AuditChecks audit;
    private final ControlDeployment controls;
    private final ScenarioRun scenarios;
    /** Null without the e2e monitoring. */
    private final PrometheusApi prometheus;

    private final AlertChecks alerts = AlertChecks.of(LOG);
    private final DashboardCheck dashboard;
    private boolean dashboardChecked;
    /** Every record sent so far and every rejection, over all scenarios: the table's answer. */
    private final ScenarioRun.Table table = new ScenarioRun.Table();
    /** The first window of the next scenario's input. */
    private long nextStart = TableCheck.T0;

    public KubernetesDrill(Settings settings, TableCheck.Database db) {
        this.s = settings;
        this.db = db;
        this.flink = FlinkCluster.ofKubeconfig(settings.namespace(), settings.operatorNamespace());
        this.k8s = new Kubectl(settings.kubectl(), settings.namespace());
        Overlays overlays = new Overlays(settings.work(), settings.overlay());
        ReconcilerMetrics reconciler = new ReconcilerMetrics(flink.pods());
        this.cluster = new AfterFault.Cluster(flink, reconciler, LOG);
        this.health = ReconcilerHealth.of(flink, LOG);
        this.audit = new AuditChecks(reconciler, Duration.ofMinutes(2), LOG);
        this.controls =
                new ControlDeployment(flink, k8s, overlays, db, health, settings.topic(), settings.partitions(), LOG);
        this.prometheus = settings.monitoring() == null
                ? null
                : new PrometheusApi(
                        settings.monitoring().prometheus(),
                        settings.monitoring().alertmanager());
        this.dashboard = prometheus == null
                ? null
                : new DashboardCheck(prometheus, settings.monitoring().dashboard(), Duration.ofMinutes(3), LOG);
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
                LOG);
        this.scenarios = new ScenarioRun(backend, settings.bootstrap(), settings.topic(), Duration.ofMinutes(5), LOG);
    }

    /**
     * Runs the scenarios of {@code list} (ids, {@code all} or {@code faults}; see {@link
     * KubernetesScenario#parse}) one after another, printing the summary after each.
     *
     * The deployment's {@code flinkVersion} decides which can run (on the newest line, not the
     * major upgrade; see {@link KubernetesScenario#cannotRunOn}).
     *
     * @throws IllegalArgumentException for an unknown id or one that cannot run on the deployment's
     *     line, before anything runs
     */
    public List<ScenarioResult> run(String list) throws Exception {
        List<ScenarioResult> results = new ArrayList<>();
        String flinkVersion = flink.deployment()
                .flinkVersion()
                .orElseThrow(() -> new IllegalStateException(
                        "cannot read FlinkDeployment " + FlinkCluster.NAME + "'s spec.flinkVersion"));
        List<KubernetesScenario> scenarios = KubernetesScenario.parse(list, flinkVersion);
        LOG.accept("the deployment runs flinkVersion " + flinkVersion + "; scenarios: "
                + scenarios.stream().map(KubernetesScenario::id).collect(Collectors.joining(", ")));
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

    /** @param lastHealthy after it, every alert must resolve */
    private ScenarioResult run(KubernetesScenario scenario, boolean lastHealthy) throws Exception {
        ScenarioResult result = new ScenarioResult(scenario.scenario());
        long began = System.currentTimeMillis();
        AlertWatch watch = null;
        try {
            // Inside the try: an Alertmanager that does not answer is this scenario's error, not the run's end.
            watch = prometheus == null ? null : AlertWatch.start(prometheus);
            if (scenario.isControl()) {
                controls.deploy(scenario.control(), result);
            }
            if (scenario.incident() != null) {
                incident(scenario, result, watch);
            } else {
                produceAndStrike(scenario, result);
            }
            if (scenario.control() == KubernetesScenario.Control.ADDITIVE_SINK) {
                audit.caughtDoubling(System.currentTimeMillis(), result);
            }
            if (watch != null) {
                alerts.raised(scenario, watch, result);
                if (!scenario.isControl() && !dashboardChecked) {
                    dashboardChecked = true;
                    dashboard.answers(result);
                }
                if (scenario.equals(KubernetesScenario.STEADY)) {
                    audit.handEdit(db, result);
                    health.healthyAgain(result);
                }
                if (lastHealthy) {
                    alerts.resolved(watch, result);
                }
            }
        } catch (RuntimeException e) {
            result.error = e.getMessage();
            e.printStackTrace();
        } finally {
            if (watch != null) {
                watch.close();
                result.monitoring.add(0, "alerts active during the scenario (from its start): " + watch.timeline());
                dashboard.chart(result, began, System.currentTimeMillis());
            }
        }
        result.durationMillis = System.currentTimeMillis() - began;
        return result;
    }

    /** Another team's job beside lineflow's: the reconciler must report it and its remediation heal it. */
    private void incident(KubernetesScenario scenario, ScenarioResult result, AlertWatch watch) {
        try {
            switch (scenario.incident()) {
                case BEAM_KAFKAIO -> new BeamIncident(flink, k8s, db, s.bootstrap()).run(result, watch);
            }
        } catch (Exception e) {
            result.error = scenario.id() + " could not be carried out: " + e.getMessage();
            LOG.accept(result.error);
        }
        LOG.accept(scenario.id() + ": " + result.verdict());
    }

    /**
     * The scenario's own windows, after the previous scenario's watermark ticks, through the
     * drills' one {@link ScenarioRun}; then, after a healthy scenario, the reconciler HEALTHY and
     * the continuous audit exact too.
     */
    private void produceAndStrike(KubernetesScenario scenario, ScenarioResult result) throws Exception {
        // A leader failover is struck as early as usual, and the input goes on for the duplicate watch.
        int windows = s.windows() + (scenario.fault() == Fault.JM_LEADER_DELETE ? watchWindows() : 0);
        long start = nextStart;
        nextStart += (long) (windows + 4) * TableCheck.WINDOW;
        DeterministicInput input =
                DeterministicInput.generate(s.devices(), windows, s.pieces(), TableCheck.WINDOW, start, s.partitions());
        input.addWatermarkTicks(start + (windows + 1) * TableCheck.WINDOW + TableCheck.WINDOW / 2);
        boolean control = scenario.control() == KubernetesScenario.Control.NO_CHECKPOINTS;
        // Halfway through the middle window, not at a window boundary: the window being counted
        // when the fault strikes is half read, so a job that loses its state cannot hide it (a
        // boundary fault leaves the no-checkpoints control nothing to lose once the window before
        // has fired). The no-checkpoints control holds the rest of the input until its fault has
        // taken effect; every other fault meets input that keeps arriving.
        ScenarioRun.Plan plan = new ScenarioRun.Plan(
                input,
                windows * s.millisPerWindow(),
                input.middleOf(s.windows() / 2),
                control,
                control ? CONTROL_PACE : PACE,
                scenario.scenario().injects() ? new Strike(scenario) : null);
        long produced = scenarios.run(scenario.id(), plan, table, result);
        if (!scenario.isControl()) {
            health.healthyAgain(result);
            audit.exact(scenario.id(), produced, result);
        }
        LOG.accept(scenario.id() + ": " + result.verdict());
        result.problems.stream().limit(20).forEach(p -> LOG.accept("  " + p));
    }

    /** The input's windows that span the duplicate watch, at the drill's pace. */
    private int watchWindows() {
        long watch = AfterFault.NewLeader.DUPLICATE_WATCH.toMillis();
        return (int) ((watch + s.millisPerWindow() - 1) / s.millisPerWindow());
    }

    /**
     * A scenario's strike on the cluster: the cluster read before it, a watch for a new leader
     * through it, and the fault's own checks after it ({@link AfterFault}). The no-checkpoints
     * control loses both pods its own way; the additive-sink control strikes once a row can be
     * doubled.
     */
    private final class Strike implements ScenarioRun.Strike {
        private final KubernetesScenario scenario;
        private AfterFault.Before before;
        private LeaderWatch leader;

        Strike(KubernetesScenario scenario) {
            this.scenario = scenario;
        }

        @Override
        public void before(long injectedAt) {
            before = AfterFault.Before.of(cluster, injectedAt);
            leader = LeaderWatch.start(flink.pods(), before.leader(), injectedAt, PACE.limit());
        }

        @Override
        public Long strike() throws Exception {
            if (scenario.fault() == null) {
                backend.loseJobManagerAndTaskManager();
                return null;
            }
            if (scenario.control() == KubernetesScenario.Control.ADDITIVE_SINK) {
                controls.awaitRowSinceCheckpoint();
            }
            return backend.strike(scenario.fault());
        }

        @Override
        public void after(ScenarioResult result) throws InterruptedException {
            result.leaderMillis = leader.stop();
            if (result.leaderMillis != null) {
                LOG.accept(
                        scenario.id() + ": a new JobManager leader after " + DrillReport.seconds(result.leaderMillis));
            }
            if (scenario.fault() != null) {
                AfterFault.of(scenario.fault()).check(cluster, before, result);
            }
        }
    }
}
