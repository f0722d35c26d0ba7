package io.lineflow.drill.kubernetes;

/**
 * Whether a window row has been written since the latest completed checkpoint, judged from one
 * reading after another of the checkpoints the job has completed and the rows in the table: the
 * first reading after a checkpoint is the baseline, and a later one with more rows and no newer
 * checkpoint says yes. Only such a row is written again when the job restores that checkpoint.
 */
final class RowSinceCheckpoint {
    private long checkpoint = -1;
    private long rows = -1;

    /**
     * One reading: {@code checkpoints} completed (-1 when the JobManager did not say) and {@code
     * rows} in the table (-1 when it could not be read); true once a row has been written since
     * the latest checkpoint.
     */
    boolean observe(long checkpoints, long rows) {
        // An unread count is no baseline: any count read next would look like rows written.
        if (checkpoints != checkpoint || checkpoints < 0 || this.rows < 0) {
            checkpoint = checkpoints;
            this.rows = rows;
            return false;
        }
        return rows > this.rows;
    }

    /** The latest checkpoint seen, -1 before one. */
    long checkpoint() {
        return checkpoint;
    }
}
