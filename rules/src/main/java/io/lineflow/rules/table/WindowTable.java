package io.lineflow.rules.table;

import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount.Row;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The job's tables read back as the recount's rows, and the one comparison of two window tables:
 * the audit, the tests and the drills all judge the table with it.
 */
public final class WindowTable {
    private WindowTable() {}

    /** The key of a row in these maps, readable in a report: {@code press-007@2026-11-01T10:05:00Z}. */
    public static String key(String device, long windowStart) {
        return device + "@" + Instant.ofEpochMilli(windowStart);
    }

    /** Every row of {@code device_window_stats}, keyed by {@link #key}. */
    public static Map<String, Row> read(Connection c) throws SQLException {
        return read(c, null);
    }

    /**
     * The rows of {@code device_window_stats} whose window starts at or before {@code lastStart}
     * (all of them if null), keyed by {@link #key}.
     */
    public static Map<String, Row> read(Connection c, Long lastStart) throws SQLException {
        return read(c, null, lastStart);
    }

    /**
     * The rows of {@code device_window_stats} whose window starts in [{@code firstStart}, {@code
     * lastStart}] (a null bound is open), keyed by {@link #key}.
     */
    public static Map<String, Row> read(Connection c, Long firstStart, Long lastStart) throws SQLException {
        Map<String, Row> rows = new TreeMap<>();
        List<Long> bounds = new ArrayList<>();
        List<String> where = new ArrayList<>();
        if (firstStart != null) {
            where.add("window_start >= ?");
            bounds.add(firstStart);
        }
        if (lastStart != null) {
            where.add("window_start <= ?");
            bounds.add(lastStart);
        }
        try (PreparedStatement s = c.prepareStatement("SELECT device_id, line_id, window_start, pieces_produced,"
                + " downtime_count, downtime_seconds, events_seen, first_event_at, last_event_at"
                + " FROM device_window_stats" + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)))) {
            for (int i = 0; i < bounds.size(); i++) {
                s.setTimestamp(i + 1, new Timestamp(bounds.get(i)));
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Row r = new Row(
                            rs.getString(1),
                            rs.getString(2),
                            rs.getTimestamp(3).getTime(),
                            rs.getLong(4),
                            rs.getInt(5),
                            rs.getBigDecimal(6).movePointRight(3).longValueExact(),
                            rs.getLong(7),
                            millis(rs.getTimestamp(8)),
                            millis(rs.getTimestamp(9)));
                    rows.put(r.key(), r);
                }
            }
        }
        return rows;
    }

    /** Rows of {@code rejected_events} per reason. */
    public static Map<RejectReason, Long> rejections(Connection c) throws SQLException {
        Map<RejectReason, Long> counts = new EnumMap<>(RejectReason.class);
        try (PreparedStatement s = c.prepareStatement("SELECT reason, count(*) FROM rejected_events GROUP BY reason");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                counts.put(RejectReason.valueOf(rs.getString(1)), rs.getLong(2));
            }
        }
        return counts;
    }

    /** One way two window tables differ. */
    public record Difference(Kind kind, String key, String column, Object expected, Object actual) {
        /** A row only expected, a row only found, or a cell that differs. */
        public enum Kind {
            MISSING,
            EXTRA,
            WRONG
        }

        @Override
        public String toString() {
            return switch (kind) {
                case MISSING -> "MISSING " + key + " " + expected;
                case EXTRA -> "EXTRA " + key + " " + actual;
                case WRONG -> "WRONG " + key + " " + column + ": expected " + expected + ", got " + actual;
            };
        }
    }

    /**
     * Every difference between the expected and the actual table: a missing row, an extra row, or
     * each wrong cell with both values (columns named as in the table). Empty when the table is
     * exact.
     */
    public static List<Difference> diff(Map<String, Row> expected, Map<String, Row> actual) {
        List<Difference> out = new ArrayList<>();
        expected.forEach((key, want) -> {
            Row got = actual.get(key);
            if (got == null) {
                out.add(new Difference(Difference.Kind.MISSING, key, null, want, null));
                return;
            }
            cell(out, key, "line_id", want.lineId(), got.lineId());
            cell(out, key, "pieces_produced", want.pieces(), got.pieces());
            cell(out, key, "downtime_count", want.downtimeCount(), got.downtimeCount());
            cell(out, key, "downtime_ms", want.downtimeMillis(), got.downtimeMillis());
            cell(out, key, "events_seen", want.events(), got.events());
            cell(out, key, "first_event_at", want.firstTs(), got.firstTs());
            cell(out, key, "last_event_at", want.lastTs(), got.lastTs());
        });
        actual.forEach((key, got) -> {
            if (!expected.containsKey(key)) {
                out.add(new Difference(Difference.Kind.EXTRA, key, null, null, got));
            }
        });
        return out;
    }

    private static void cell(List<Difference> out, String key, String column, Object want, Object got) {
        if (!Objects.equals(want, got)) {
            out.add(new Difference(Difference.Kind.WRONG, key, column, want, got));
        }
    }

    private static Long millis(Timestamp ts) {
        return ts == null ? null : ts.getTime();
    }
}
