package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;

/** One concern's checks: a pure function of what was observed, the options and a clock. */
@FunctionalInterface
public interface Check {

    /** This concern's findings, {@link HealthResult#healthy()} when there are none. */
    HealthResult evaluate(Observation o, Configuration conf, Clock clock);
}
