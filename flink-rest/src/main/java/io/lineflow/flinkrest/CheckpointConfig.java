package io.lineflow.flinkrest;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A job's checkpoint configuration, {@code GET /jobs/:id/checkpoints/config}.
 *
 * @param interval milliseconds; Flink reports checkpointing switched off as {@code Long.MAX_VALUE}
 * @param timeout milliseconds, {@code null} if not reported
 */
public record CheckpointConfig(
        String mode,
        long interval,
        Long timeout,
        Externalization externalization,
        @JsonProperty("tolerable_failed_checkpoints") Integer tolerableFailedCheckpoints) {

    /** Whether completed checkpoints are kept where a restart can find them. */
    public record Externalization(
            Boolean enabled,
            @JsonProperty("delete_on_cancellation") Boolean deleteOnCancellation) {}

    /** Checkpoints are taken: a positive interval short of the "never" Flink reports for off. */
    public boolean enabled() {
        return interval > 0 && interval < Long.MAX_VALUE / 2;
    }
}
