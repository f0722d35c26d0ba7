package io.lineflow.drill.local;

import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakVerdicts;
import io.lineflow.flinkrest.CheckpointStats;
import io.lineflow.flinkrest.FlinkRest;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/** The latest completed checkpoint's sizes (full and incremental) and duration, from the leader's REST API. */
record CheckpointProbe(Supplier<Optional<String>> restAddress, Supplier<String> jobId, FlinkRest rest)
        implements SoakSampler.Probe {
    CheckpointProbe(Supplier<Optional<String>> restAddress, Supplier<String> jobId) {
        this(restAddress, jobId, new FlinkRest(Duration.ofSeconds(5)));
    }

    @Override
    public void sample(long now, SoakRecord record) {
        restAddress.get().ifPresent(base -> {
            try {
                CheckpointStats.Checkpoint c =
                        rest.checkpoints(base, jobId.get()).latest().completed();
                if (c != null) {
                    record.add(SoakVerdicts.CHECKPOINT_SIZE, "bytes", SoakVerdicts.FULL, now, c.stateSize());
                    record.add(
                            SoakVerdicts.CHECKPOINT_SIZE, "bytes", "incremental (written)", now, c.checkpointedSize());
                    record.add(SoakVerdicts.CHECKPOINT_DURATION, "ms", "end to end", now, c.endToEndDuration());
                }
            } catch (IOException e) {
                // no statistics while the job restarts
            }
        });
    }
}
