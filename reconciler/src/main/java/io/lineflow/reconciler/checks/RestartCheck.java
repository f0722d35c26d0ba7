package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.ReconcilerOptions.RESTART_THRESHOLD;
import static io.lineflow.reconciler.ReconcilerOptions.RESTART_WINDOW;
import static io.lineflow.reconciler.checks.Format.human;

import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/** RESTART_LOOP: numRestarts grew by the threshold or more within the window. */
public final class RestartCheck implements Check {

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        Job job = o.job();
        if (job == null || job.numRestarts() == null) {
            return HealthResult.healthy();
        }
        Duration window = conf.get(RESTART_WINDOW);
        Optional<Sample> base = Samples.oldestWithin(o, window, s -> s.numRestarts() != null);
        if (base.isEmpty()) {
            return HealthResult.healthy();
        }
        long delta = job.numRestarts() - base.get().numRestarts();
        if (delta < conf.get(RESTART_THRESHOLD)) {
            return HealthResult.healthy();
        }
        return Finding.of(
                        FindingCode.RESTART_LOOP,
                        Severity.CRITICAL,
                        "The job restarted " + delta + " times in the last "
                                + human(Duration.between(base.get().at(), o.observedAt()))
                                + ": it is failing over and over, so output stalls. Read the root cause in the JobManager log or Flink UI (Exceptions tab).")
                .with("restartsInWindow", delta)
                .with("numRestarts", job.numRestarts())
                .with("windowSeconds", window.toSeconds())
                .build()
                .asResult();
    }
}
