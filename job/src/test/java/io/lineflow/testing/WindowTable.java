package io.lineflow.testing;

import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.rules.event.RejectReason;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** Reads the job's tables back and compares them with what they should hold. */
public final class WindowTable {
    private WindowTable() {}

    /** The key of a row in these maps, readable in a report: {@code press-007@2026-11-01T10:05:00Z}. */
    public static String key(String device, long windowStart) {
        return device + "@" + Instant.ofEpochMilli(windowStart);
    }

    /** Every row of {@code device_window_stats}, keyed by {@link #key}. */
    public static Map<String, DeviceWindowStats> read(Connection c) throws SQLException {
        Map<String, DeviceWindowStats> rows = new TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT device_id, line_id, window_start, window_end, pieces_produced,"
                        + " downtime_count, downtime_seconds, events_seen, first_event_at,"
                        + " last_event_at FROM device_window_stats")) {
            while (rs.next()) {
                DeviceWindowStats r = new DeviceWindowStats();
                r.deviceId = rs.getString(1);
                r.lineId = rs.getString(2);
                r.windowStart = rs.getTimestamp(3).getTime();
                r.windowEnd = rs.getTimestamp(4).getTime();
                r.piecesProduced = rs.getLong(5);
                r.downtimeCount = rs.getInt(6);
                r.downtimeMillis = rs.getBigDecimal(7).movePointRight(3).longValueExact();
                r.eventsSeen = rs.getLong(8);
                r.firstEventTs = millis(rs.getTimestamp(9));
                r.lastEventTs = millis(rs.getTimestamp(10));
                rows.put(key(r.deviceId, r.windowStart), r);
            }
        }
        return rows;
    }

    /** Rows of {@code rejected_events} per reason. */
    public static Map<RejectReason, Long> rejections(Connection c) throws SQLException {
        Map<RejectReason, Long> counts = new EnumMap<>(RejectReason.class);
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT reason, count(*) FROM rejected_events GROUP BY reason")) {
            while (rs.next()) {
                counts.put(RejectReason.valueOf(rs.getString(1)), rs.getLong(2));
            }
        }
        return counts;
    }

    public static void truncate(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("TRUNCATE device_window_stats, rejected_events");
        }
    }

    /**
     * Every difference between the expected and the actual table: a missing row, an extra row, or
     * each wrong cell with both values. Empty when the table is exact.
     */
    public static List<String> diff(Map<String, DeviceWindowStats> expected, Map<String, DeviceWindowStats> actual) {
        List<String> problems = new ArrayList<>();
        expected.forEach((key, want) -> {
            DeviceWindowStats got = actual.get(key);
            if (got == null) {
                problems.add("MISSING " + key + " " + want);
                return;
            }
            cell(problems, key, "line_id", want.lineId, got.lineId);
            cell(problems, key, "window_end", want.windowEnd, got.windowEnd);
            cell(problems, key, "pieces_produced", want.piecesProduced, got.piecesProduced);
            cell(problems, key, "downtime_count", want.downtimeCount, got.downtimeCount);
            cell(problems, key, "downtime_ms", want.downtimeMillis, got.downtimeMillis);
            cell(problems, key, "events_seen", want.eventsSeen, got.eventsSeen);
            cell(problems, key, "first_event_at", want.firstEventTs, got.firstEventTs);
            cell(problems, key, "last_event_at", want.lastEventTs, got.lastEventTs);
        });
        actual.forEach((key, got) -> {
            if (!expected.containsKey(key)) {
                problems.add("EXTRA " + key + " " + got);
            }
        });
        return problems;
    }

    private static void cell(List<String> problems, String key, String column, Object want, Object got) {
        if (!Objects.equals(want, got)) {
            problems.add("WRONG " + key + " " + column + ": expected " + want + ", got " + got);
        }
    }

    private static Long millis(Timestamp ts) {
        return ts == null ? null : ts.getTime();
    }
}
