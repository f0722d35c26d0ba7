package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Predicate;

/** What the earlier samples of a deployment say: the base of a count, and when the job was last restored. */
final class Samples {

    private Samples() {}

    /** The oldest sample within {@code window} before the observation that has the figure asked for. */
    static Optional<Sample> oldestWithin(Observation o, Duration window, Predicate<Sample> has) {
        Instant from = o.observedAt().minus(window);
        return o.history().stream()
                .filter(s -> !s.at().isBefore(from) && has.test(s))
                .findFirst();
    }

    static double secondsBetween(Instant a, Instant b) {
        return Duration.between(a, b).toMillis() / 1000.0;
    }

    /**
     * When the job was last restored after {@code since}, or null: its start, or the first sample
     * that saw its current restart count (a task restart is seen at the next pass, not before).
     */
    static Instant lastRestore(Observation o, Job job, Instant since) {
        Instant restored = null;
        if (job.startTime() != null && job.startTime().isAfter(since)) {
            restored = job.startTime();
        }
        if (restartedSince(o, job, since)) {
            for (Sample s : o.history()) {
                if (job.numRestarts().equals(s.numRestarts())) {
                    return restored == null || s.at().isAfter(restored) ? s.at() : restored;
                }
            }
            return o.observedAt();
        }
        return restored;
    }

    /**
     * Whether the job was restored from a checkpoint since {@code since}: started anew (a
     * JobManager failover, an upgrade, a resume) or restarted its tasks.
     */
    static boolean restoredWithin(Observation o, Job job, Instant since) {
        return (job.startTime() != null && job.startTime().isAfter(since)) || restartedSince(o, job, since);
    }

    /** Whether the job restarted its tasks since {@code since}: its restart count grew. */
    private static boolean restartedSince(Observation o, Job job, Instant since) {
        if (job.numRestarts() == null) {
            return false;
        }
        Sample before = null;
        for (Sample s : o.history()) {
            if (s.numRestarts() != null && (before == null || !s.at().isAfter(since))) {
                before = s; // the newest sample not after `since`, else the oldest there is
            }
        }
        return before != null && job.numRestarts() > before.numRestarts();
    }
}
