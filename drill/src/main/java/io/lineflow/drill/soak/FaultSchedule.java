package io.lineflow.drill.soak;

import io.lineflow.drill.core.Fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * When the soak strikes which fault: one every {@code every}, from {@code every} on, cycling
 * through the faults in order, and none in the last {@code every} of the run, so that the last
 * fault has as long to recover as any other before the final check.
 */
public final class FaultSchedule {
    /** One fault, struck {@code at} after the run began. */
    public record Strike(Duration at, Fault fault) {}

    private FaultSchedule() {}

    public static List<Strike> of(Duration duration, Duration every, List<Fault> faults) {
        List<Strike> out = new ArrayList<>();
        if (faults.isEmpty() || every.isZero() || every.isNegative()) {
            return out;
        }
        for (long k = 1; every.multipliedBy(k + 1).compareTo(duration) <= 0; k++) {
            out.add(new Strike(every.multipliedBy(k), faults.get((int) ((k - 1) % faults.size()))));
        }
        return out;
    }
}
