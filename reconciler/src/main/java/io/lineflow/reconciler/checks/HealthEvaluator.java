package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;

/** Evaluates an observation: spec checks, plus runtime checks when anything runtime was observed. */
public final class HealthEvaluator {

    private final Configuration conf;
    private final Clock clock;

    public HealthEvaluator(Configuration conf, Clock clock) {
        this.conf = conf;
        this.clock = clock;
    }

    public HealthResult evaluate(Observation o) {
        HealthResult spec = SpecChecks.evaluate(o.spec());
        if (o.flink() == null && o.kafka() == null && o.status() == null) {
            return spec;
        }
        HealthResult runtime = RuntimeChecks.evaluate(o, conf, clock);
        if (!spec.has(FindingCode.CHECKPOINTING_DISABLED)) {
            runtime = runtime.join(RuntimeChecks.checkpointingDisabledAtRuntime(o));
        }
        return spec.join(runtime);
    }

    /** Runtime checks only, for a plain Flink REST URL where no FlinkDeployment spec is known. */
    public HealthResult evaluateRuntimeOnly(Observation o) {
        return RuntimeChecks.evaluate(o, conf, clock).join(RuntimeChecks.checkpointingDisabledAtRuntime(o));
    }
}
