package io.lineflow.job.sink;

import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.settings.LineflowOptions.SinkMode;

import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The upsert of one {@code device_window_stats} row, keyed by (device_id, window_start).
 *
 * <p>Writes are idempotent: a row replayed after recovery, or re-emitted by a late event,
 * overwrites the row instead of adding to it. That is what makes Flink's exactly-once state
 * exactly-once in the table with an at-least-once sink.
 */
public class DeviceWindowStatsStatement implements JdbcQueryStatement<DeviceWindowStats> {
    private static final long serialVersionUID = 1L;

    private static final String INSERT =
            "INSERT INTO device_window_stats (device_id, window_start, window_end, line_id,"
                    + " pieces_produced, downtime_count, downtime_seconds, events_seen,"
                    + " first_event_at, last_event_at, updated_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now())"
                    + " ON CONFLICT (device_id, window_start) DO UPDATE SET"
                    + " window_end = EXCLUDED.window_end, line_id = EXCLUDED.line_id,"
                    + " first_event_at = EXCLUDED.first_event_at,"
                    + " last_event_at = EXCLUDED.last_event_at, updated_at = now(), ";

    private static final String OVERWRITE = INSERT
            + "pieces_produced = EXCLUDED.pieces_produced,"
            + " downtime_count = EXCLUDED.downtime_count,"
            + " downtime_seconds = EXCLUDED.downtime_seconds,"
            + " events_seen = EXCLUDED.events_seen";

    /** The drill's negative control: replays add up. Never use it for real figures. */
    private static final String ADD = INSERT
            + "pieces_produced = device_window_stats.pieces_produced + EXCLUDED.pieces_produced,"
            + " downtime_count = device_window_stats.downtime_count + EXCLUDED.downtime_count,"
            + " downtime_seconds = device_window_stats.downtime_seconds + EXCLUDED.downtime_seconds,"
            + " events_seen = device_window_stats.events_seen + EXCLUDED.events_seen";

    private final SinkMode mode;

    public DeviceWindowStatsStatement(SinkMode mode) {
        this.mode = mode;
    }

    @Override
    public String query() {
        return mode == SinkMode.ADDITIVE ? ADD : OVERWRITE;
    }

    @Override
    public void statement(PreparedStatement ps, DeviceWindowStats row) throws SQLException {
        ps.setString(1, row.deviceId);
        ps.setObject(2, utc(row.windowStart));
        ps.setObject(3, utc(row.windowEnd));
        ps.setString(4, row.lineId);
        ps.setLong(5, row.piecesProduced);
        ps.setInt(6, row.downtimeCount);
        ps.setBigDecimal(7, BigDecimal.valueOf(row.downtimeMillis, 3));
        ps.setLong(8, row.eventsSeen);
        setInstant(ps, 9, row.firstEventTs);
        setInstant(ps, 10, row.lastEventTs);
    }

    static OffsetDateTime utc(long epochMillis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), ZoneOffset.UTC);
    }

    private static void setInstant(PreparedStatement ps, int index, Long epochMillis) throws SQLException {
        if (epochMillis == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, utc(epochMillis));
        }
    }
}
