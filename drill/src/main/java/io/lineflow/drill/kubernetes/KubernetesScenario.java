package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Scenario;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A scenario of the Kubernetes drill, in the order {@code all} runs them: the input alone, each
 * fault of the Kubernetes drill on the one long-running deployment, the incidents (another team's
 * job beside it, which the reconciler must catch), then the negative controls, each on a fresh
 * deployment with a pitfall applied on purpose.
 *
 * @param fault what is struck mid-input; null for {@link #STEADY}, the incidents and the
 *     no-checkpoints control, which loses its pods in its own way
 * @param control the pitfall of a negative control; null for the other scenarios
 * @param incident the incident reproduced; null for the other scenarios
 */
record KubernetesScenario(String id, Fault fault, Control control, Incident incident) {
    /** Nothing: the input, then the table (what {@code make e2e} checks). */
    static final KubernetesScenario STEADY = new KubernetesScenario("steady", null, null);

    /** The negative controls: a fresh deployment with a pitfall, then a fault that must expose it. */
    enum Control {
        /** An additive sink, then a TaskManager pod killed. */
        ADDITIVE_SINK("control:additive-sink", Fault.TM_POD_KILL),
        /**
         * Checkpointing off (the seed pitfall the reconciler must report) reading from the latest
         * offset, then the JobManager and TaskManager pods deleted.
         */
        NO_CHECKPOINTS("control:no-checkpoints", null);

        final String id;
        final Fault fault;

        Control(String id, Fault fault) {
            this.id = id;
            this.fault = fault;
        }
    }

    /**
     * Another team's job beside lineflow's, whose failure the in-cluster reconciler must report and
     * remediate. Lineflow's deployment and table are left alone.
     */
    enum Incident {
        /** Beam KafkaIO on Flink 1.16 reads every record twice after a JobManager failover ({@link BeamIncident}). */
        BEAM_KAFKAIO("incident:beam-kafkaio");

        final String id;

        Incident(String id) {
            this.id = id;
        }
    }

    KubernetesScenario(String id, Fault fault, Control control) {
        this(id, fault, control, null);
    }

    static KubernetesScenario of(Incident incident) {
        return new KubernetesScenario(incident.id, null, null, incident);
    }

    static KubernetesScenario of(Fault fault) {
        return new KubernetesScenario(fault.id, fault, null);
    }

    static KubernetesScenario of(Control control) {
        return new KubernetesScenario(control.id, control.fault, control);
    }

    /** Flink's job uptime drops on every restore: a job restarted, failed over, upgraded or resumed. */
    static final String JOB_RESTARTED = "LineflowJobRestarted";

    /**
     * The alerts this scenario must raise (docs/monitoring.md): a restore of the job raises
     * {@value #JOB_RESTARTED}, the no-checkpoints control the checkpointing alert. The rest may
     * raise nothing that still fires once the scenario is over, but {@value #JOB_RESTARTED},
     * which by design clears 10 minutes after the restore.
     */
    Set<String> raises() {
        if (incident != null) {
            return switch (incident) {
                case BEAM_KAFKAIO -> Set.of(BeamIncident.ALERT);
            };
        }
        if (control == Control.NO_CHECKPOINTS) {
            return Set.of("LineflowCheckpointingDisabled");
        }
        if (control == Control.ADDITIVE_SINK) {
            // The continuous audit's own finding, not only the drill's verifier.
            return Set.of(JOB_RESTARTED, "LineflowAuditMismatch");
        }
        if (fault == null) {
            return Set.of();
        }
        return switch (fault) {
            case JM_POD_DELETE,
                    JM_LEADER_DELETE,
                    JM_LEADER_KILL,
                    JM_KILL,
                    TM_POD_KILL,
                    SUSPEND_RESUME,
                    LAST_STATE_UPGRADE,
                    SAVEPOINT_UPGRADE,
                    MAJOR_UPGRADE,
                    MAJOR_ROLLBACK -> Set.of(JOB_RESTARTED);
            case OPERATOR_UPGRADE,
                    JM_STANDBY_DELETE,
                    OPERATOR_RESTART,
                    DB_OUTAGE,
                    KAFKA_RESTART,
                    S3_OUTAGE,
                    NODE_RESTART -> Set.of();
            // No default: a new fault does not compile until it says what it raises here.
            case TM_KILL,
                    JM_FAILOVER,
                    FULL_RESTART,
                    UPGRADE,
                    PG_KILL,
                    KAFKA_KILL,
                    PARTITION_DB,
                    PARTITION_KAFKA,
                    PARTITION_JM ->
                throw new IllegalStateException(fault.id + " is not a fault of the Kubernetes drill");
        };
    }

    boolean isControl() {
        return control != null;
    }

    /** As the report names and judges it. */
    Scenario scenario() {
        return new Scenario("kubernetes:" + id, isControl(), fault != null || isControl());
    }

    /**
     * Every scenario: the faults that keep the Flink line, then the major upgrade and its rollback
     * (which leaves this line's spec redeployed from a savepoint), the incidents, the controls last.
     */
    static List<KubernetesScenario> all() {
        List<Fault> faults = Fault.on(Backend.Kind.KUBERNETES);
        return Stream.of(
                        Stream.of(STEADY),
                        faults.stream().filter(f -> !f.changesFlinkLine()).map(KubernetesScenario::of),
                        faults.stream().filter(Fault::changesFlinkLine).map(KubernetesScenario::of),
                        Stream.of(Incident.values()).map(KubernetesScenario::of),
                        Stream.of(Control.values()).map(KubernetesScenario::of))
                .flatMap(s -> s)
                .toList();
    }

    /**
     * Why this scenario cannot run on a deployment on {@code flinkVersion}; empty when it can. On
     * the newest line lineflow builds ({@value ReleaseFlows#NEXT_FLINK_VERSION}) there is no
     * line to upgrade to, and the operator release an operator upgrade starts from (chart.env's
     * OPERATOR_UPGRADE_FROM, which e2e.sh installs first) knows Flink versions only up to {@code
     * v1_20}.
     */
    Optional<String> cannotRunOn(String flinkVersion) {
        if (fault == null || !ReleaseFlows.NEXT_FLINK_VERSION.equals(flinkVersion)) {
            return Optional.empty();
        }
        if (fault.changesFlinkLine()) {
            return Optional.of("the deployment already runs flinkVersion " + flinkVersion
                    + ", the newest line lineflow builds: there is no line to move it to");
        }
        if (fault == Fault.OPERATOR_UPGRADE) {
            return Optional.of(
                    "the operator release it upgrades from (chart.env's OPERATOR_UPGRADE_FROM) knows flinkVersion"
                            + " only up to v1_20, not the deployment's " + flinkVersion);
        }
        return Optional.empty();
    }

    /**
     * The scenarios of a comma-separated list for a deployment on {@code flinkVersion}: ids,
     * {@code all} (every one that can run on it, controls last) or {@code faults} (the same but the
     * controls). Order is kept; controls always run last, since they leave the deployment broken on
     * purpose.
     *
     * @throws IllegalArgumentException for an unknown id, or one named that cannot run on that line
     */
    static List<KubernetesScenario> parse(String list, String flinkVersion) {
        List<KubernetesScenario> runnable = all().stream()
                .filter(s -> s.cannotRunOn(flinkVersion).isEmpty())
                .toList();
        List<KubernetesScenario> out = new ArrayList<>();
        for (String id : list.split(",")) {
            String t = id.trim();
            if (t.equals("all")) {
                out.addAll(runnable);
            } else if (t.equals("faults")) {
                runnable.stream().filter(s -> !s.isControl()).forEach(out::add);
            } else {
                KubernetesScenario named = all().stream()
                        .filter(s -> s.id.equals(t))
                        .findFirst()
                        .orElseThrow(
                                () -> new IllegalArgumentException("unknown scenario '" + t + "'; known: all, faults, "
                                        + all().stream().map(s -> s.id).collect(Collectors.joining(", "))));
                named.cannotRunOn(flinkVersion).ifPresent(why -> {
                    throw new IllegalArgumentException("scenario '" + t + "' cannot run here: " + why);
                });
                out.add(named);
            }
        }
        out.sort(Comparator.comparing(KubernetesScenario::isControl));
        return out;
    }
}
