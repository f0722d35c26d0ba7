package io.lineflow.drill.core;

import java.time.Duration;

/**
 * The recovery timeline of a struck fault, the same for every backend: fault → the job running
 * again (the recovery), and fault → the first window row written once it runs again (the output
 * gap; rows the dying job still wrote do not count). A job that shows no stop within 30 s rode the
 * fault out.
 */
public final class Timeline {
    /**
     * How a backend's timeline is watched.
     *
     * @param poll between two looks at the job
     * @param limit from the fault to the recovery and the first new row
     * @param limitAfterRecovery from a recovery the strike waited for to the first new row
     */
    public record Pace(Duration poll, Duration limit, Duration limitAfterRecovery) {}

    private static final long RIDDEN_OUT_MILLIS = 30_000;

    private Timeline() {}

    /**
     * Watches the job after a fault struck at {@code injectedAt}; {@code recoveredAt} is when the
     * job ran again if the strike waited for that, else null. The findings go to {@code result}.
     */
    /**
     * When the job ran again after a fault whose strike waited for a recovery seen at {@code
     * recoveredAt}: since when the backend says the job runs, where that falls after the fault and
     * before {@code recoveredAt} (the operator reports RUNNING after the job is), else {@code
     * recoveredAt}. Rows count from then: they are the recovered job's.
     */
    static long recoveredSince(long injectedAt, long recoveredAt, Backend.RunState job) {
        Long since = job.running() ? job.runningSince() : null;
        return since != null && since >= injectedAt && since < recoveredAt ? since : recoveredAt;
    }

    public static void measure(Backend backend, Pace pace, long injectedAt, Long recoveredAt, ScenarioResult result) {
        long deadline = injectedAt + pace.limit().toMillis();
        boolean left = recoveredAt != null;
        long outputAfter = injectedAt;
        if (recoveredAt != null) {
            long since = recoveredSince(injectedAt, recoveredAt, backend.job());
            result.recoveryMillis = since - injectedAt;
            outputAfter = since;
            deadline = recoveredAt + pace.limitAfterRecovery().toMillis();
        }
        while (System.currentTimeMillis() < deadline) {
            long now = System.currentTimeMillis();
            Backend.RunState job = backend.job();
            if (!job.running()) {
                left = true;
            } else if (result.recoveryMillis == null
                    && (left || (job.runningSince() != null && job.runningSince() >= injectedAt))) {
                // Since when the job runs, where the backend says so; else since it was seen running.
                outputAfter = job.runningSince() != null && job.runningSince() >= injectedAt ? job.runningSince() : now;
                result.recoveryMillis = outputAfter - injectedAt;
            }
            boolean settled = result.recoveryMillis != null || (!left && now - injectedAt > RIDDEN_OUT_MILLIS);
            Long first = settled ? TableCheck.firstRowWrittenAfter(backend.database(), outputAfter) : null;
            if (first != null) {
                result.outputGapMillis = first - injectedAt;
                return;
            }
            Pause.sleep(pace.poll().toMillis());
        }
    }
}
