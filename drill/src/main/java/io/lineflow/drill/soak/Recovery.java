package io.lineflow.drill.soak;

import java.util.List;

/**
 * From a fault to the job being back to steady: running, with its consumer lag at or under the
 * steady bound. Pure: judged on the lag samples taken during the run.
 *
 * <p>A fault the job restarts on (a TaskManager or JobManager killed, a partition past the
 * heartbeat timeout) is not seen at once: until Flink notices, the old attempt still reads as
 * running with a low lag. So when the samples show that the job restarted after the fault (a
 * running attempt that began after the strike, before the next one), only that new attempt counts
 * as recovered; a fault the job rides out is steady at the first steady sample after its action.
 */
public final class Recovery {
    /**
     * One look at the job: when (epoch ms), whether it ran with every task running, since when its
     * running attempt runs (epoch ms; null when not running or unknown), and its consumer lag
     * (records not yet committed by a checkpoint; null when it could not be read).
     */
    public record LagSample(long at, boolean running, Long runningSince, Long lag) {}

    private Recovery() {}

    /**
     * Milliseconds from {@code struck} to the first sample at or after {@code strikeEnded} (the
     * fault's own action done, e.g. a partition healed) that shows the job steady, in an attempt
     * begun after {@code struck} if one began before {@code until} (the next strike); null if none
     * does.
     */
    public static Long millis(List<LagSample> samples, long struck, long strikeEnded, long until, long steadyLag) {
        boolean restarted = samples.stream().anyMatch(s -> restartedSince(s, struck, until));
        for (LagSample s : samples) {
            if (s.at() >= strikeEnded
                    && s.running()
                    && s.lag() != null
                    && s.lag() <= steadyLag
                    && (!restarted || restartedSince(s, struck, until))) {
                return s.at() - struck;
            }
        }
        return null;
    }

    private static boolean restartedSince(LagSample s, long struck, long until) {
        return s.runningSince() != null && s.runningSince() >= struck && s.runningSince() < until;
    }
}
