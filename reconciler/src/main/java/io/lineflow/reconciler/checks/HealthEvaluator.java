package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/** Evaluates an observation: spec checks, plus runtime checks when anything runtime was observed. */
public final class HealthEvaluator {

    /** The spec checks, on the FlinkDeployment alone (also run offline by `lint`). */
    private static final Check SPEC = new SpecChecks();

    /** The runtime checks, one per concern, on the operator status, Flink REST and Kafka. */
    private static final List<Check> RUNTIME = List.of(
            new ObservationCheck(),
            new JobStateCheck(),
            new RestartCheck(),
            new CheckpointCheck(),
            new KafkaCheck(),
            new DuplicateConsumptionCheck(),
            new AuditCheck());

    private final Configuration conf;
    private final Clock clock;

    /** Every check the evaluator runs, spec first: a {@link Check} not listed here never runs. */
    static List<Check> checks() {
        List<Check> all = new ArrayList<>(List.of(SPEC));
        all.addAll(RUNTIME);
        return all;
    }

    public HealthEvaluator(Configuration conf, Clock clock) {
        this.conf = conf;
        this.clock = clock;
    }

    /**
     * The spec checks and, when anything runtime was observed, the runtime checks. A code the spec
     * already reports is not repeated from runtime (CHECKPOINTING_DISABLED, seen in both): the
     * spec's finding says which setting to change.
     */
    public HealthResult evaluate(Observation o) {
        HealthResult spec = SPEC.evaluate(o, conf, clock);
        if (o.flink() == null && o.kafka() == null && o.status() == null && o.audit() == null) {
            return spec;
        }
        return spec.join(evaluateRuntimeOnly(o).without(spec.codes()));
    }

    /** Runtime checks only, for a plain Flink REST URL where no FlinkDeployment spec is known. */
    public HealthResult evaluateRuntimeOnly(Observation o) {
        HealthResult r = HealthResult.healthy();
        for (Check check : RUNTIME) {
            r = r.join(check.evaluate(o, conf, clock));
        }
        return r;
    }
}
