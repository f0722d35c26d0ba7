package io.lineflow.drill.soak;

import java.util.List;

/**
 * From a fault to the job being back to steady: running, with its consumer lag at or under the
 * steady bound. Pure: judged on the lag samples taken during the run.
 */
public final class Recovery {
    /**
     * One look at the job: when (epoch ms), whether it ran with every task running, and its consumer
     * lag (records not yet committed by a checkpoint; null when it could not be read).
     */
    public record LagSample(long at, boolean running, Long lag) {}

    private Recovery() {}

    /**
     * Milliseconds from {@code struck} to the first sample at or after {@code strikeEnded} (the
     * fault's own action done, e.g. a partition healed) that shows the job steady; null if none
     * does.
     */
    public static Long millis(List<LagSample> samples, long struck, long strikeEnded, long steadyLag) {
        for (LagSample s : samples) {
            if (s.at() >= strikeEnded && s.running() && s.lag() != null && s.lag() <= steadyLag) {
                return s.at() - struck;
            }
        }
        return null;
    }
}
