package io.lineflow.flinkrest;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * A job's checkpoint statistics, {@code GET /jobs/:id/checkpoints}: counts, the latest of each
 * kind, and the recent history (Flink keeps {@code web.checkpoints.history} entries).
 */
public record CheckpointStats(Counts counts, Latest latest, List<Checkpoint> history) {

    /** No statistics: what a job reports before its first checkpoint is triggered. */
    public static final CheckpointStats NONE = new CheckpointStats(null, null, null);

    public CheckpointStats {
        counts = counts == null ? new Counts(0, 0, 0, 0, 0) : counts;
        latest = latest == null ? new Latest(null, null, null) : latest;
        history = history == null ? List.of() : history;
    }

    /** How many checkpoints were restored from, triggered, are running, completed and failed. */
    public record Counts(
            long restored,
            long total,
            @JsonProperty("in_progress") long inProgress,
            long completed,
            long failed) {}

    /** The latest completed checkpoint, savepoint and failed checkpoint; each may be null. */
    public record Latest(Checkpoint completed, Checkpoint savepoint, Checkpoint failed) {}

    /**
     * One checkpoint. Times are epoch milliseconds (0 when not reported), sizes bytes;
     * {@code stateSize} is the full state, {@code checkpointedSize} what this checkpoint wrote
     * (less than the full state for an incremental one).
     */
    public record Checkpoint(
            long id,
            String status,
            @JsonProperty("trigger_timestamp") long triggerTimestamp,
            @JsonProperty("latest_ack_timestamp") long latestAckTimestamp,
            @JsonProperty("end_to_end_duration") long endToEndDuration,
            @JsonProperty("state_size") long stateSize,
            @JsonProperty("checkpointed_size") long checkpointedSize,
            @JsonProperty("external_path") String externalPath,
            @JsonProperty("failure_timestamp") long failureTimestamp,
            @JsonProperty("failure_message") String failureMessage) {

        /** When it completed: the last acknowledgement, else the trigger time. */
        public long completedAt() {
            return latestAckTimestamp > 0 ? latestAckTimestamp : triggerTimestamp;
        }
    }
}
