package io.lineflow.drill.local;

import io.lineflow.drill.soak.SoakRecord;

import java.util.List;

/**
 * What the soak measures while it runs, one probe per measure: the lag and the job's state every
 * tick ({@link LagProbe}), every other probe every {@code ticksPerSample} ticks. A sample that
 * cannot be taken now is missing from the charts, not fatal.
 */
final class SoakSampler {
    /** One measure, taken at a sample. */
    interface Probe {
        /** Adds this measure's values at {@code now} (epoch ms) to {@code record}, or nothing when it cannot be taken now. */
        void sample(long now, SoakRecord record);
    }

    private final LagProbe lag;
    private final List<Probe> probes;
    private final int ticksPerSample;
    private final SoakRecord record;
    private int ticks;

    SoakSampler(LagProbe lag, List<Probe> probes, int ticksPerSample, SoakRecord record) {
        this.lag = lag;
        this.probes = probes;
        this.ticksPerSample = ticksPerSample;
        this.record = record;
    }

    /** One tick of the sampler's schedule. */
    void tick() {
        long now = System.currentTimeMillis();
        try {
            record.lag(lag.sample(now));
        } catch (RuntimeException e) {
            // no lag sample now
        }
        if (ticks++ % ticksPerSample == 0) {
            for (Probe p : probes) {
                try {
                    p.sample(now, record);
                } catch (RuntimeException e) {
                    // this measure is missing from this sample
                }
            }
        }
    }
}
