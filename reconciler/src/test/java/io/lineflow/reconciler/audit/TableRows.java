package io.lineflow.reconciler.audit;

import io.lineflow.rules.recount.WindowRecount.Row;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;

/** Rows of {@code device_window_stats} written for the audit's tests, in one transaction. */
final class TableRows {
    /** What the job's sink does with a row already there: replaces its counts. */
    static final String REPLACING = "pieces_produced = EXCLUDED.pieces_produced, events_seen = EXCLUDED.events_seen";

    /** What an additive sink does: adds to them, so a replay counts twice. */
    static final String ADDING = "pieces_produced = device_window_stats.pieces_produced + EXCLUDED.pieces_produced,"
            + " events_seen = device_window_stats.events_seen + EXCLUDED.events_seen";

    private TableRows() {}

    /**
     * Inserts {@code rows} (windows {@code windowMillis} long); a row already there is updated with
     * {@code onConflict} ({@link #REPLACING}, {@link #ADDING}), or, with null, is an error.
     */
    static void write(Connection c, Iterable<Row> rows, long windowMillis, String onConflict) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO device_window_stats (device_id, window_start,"
                + " window_end, line_id, pieces_produced, downtime_count, downtime_seconds, events_seen,"
                + " first_event_at, last_event_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + (onConflict == null ? "" : " ON CONFLICT (device_id, window_start) DO UPDATE SET " + onConflict))) {
            c.setAutoCommit(false);
            int n = 0;
            for (Row r : rows) {
                s.setString(1, r.deviceId());
                s.setTimestamp(2, new Timestamp(r.windowStart()));
                s.setTimestamp(3, new Timestamp(r.windowStart() + windowMillis));
                s.setString(4, r.lineId());
                s.setLong(5, r.pieces());
                s.setInt(6, r.downtimeCount());
                s.setBigDecimal(7, BigDecimal.valueOf(r.downtimeMillis(), 3));
                s.setLong(8, r.events());
                s.setTimestamp(9, r.firstTs() == null ? null : new Timestamp(r.firstTs()));
                s.setTimestamp(10, r.lastTs() == null ? null : new Timestamp(r.lastTs()));
                s.addBatch();
                if (++n % 1000 == 0) {
                    s.executeBatch();
                }
            }
            s.executeBatch();
            c.commit();
        }
    }
}
