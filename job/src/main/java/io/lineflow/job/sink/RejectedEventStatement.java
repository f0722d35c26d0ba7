package io.lineflow.job.sink;

import io.lineflow.rules.event.RejectedEvent;

import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Keeps one rejected record in {@code rejected_events}, keyed by its Kafka coordinates, so a
 * record rejected again after a replay is stored once.
 */
public class RejectedEventStatement implements JdbcQueryStatement<RejectedEvent> {
    private static final long serialVersionUID = 1L;

    @Override
    public String query() {
        return "INSERT INTO rejected_events (topic, kafka_partition, kafka_offset, reason, detail, raw)"
                + " VALUES (?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (topic, kafka_partition, kafka_offset) DO UPDATE SET"
                + " reason = EXCLUDED.reason, detail = EXCLUDED.detail, raw = EXCLUDED.raw";
    }

    @Override
    public void statement(PreparedStatement ps, RejectedEvent r) throws SQLException {
        ps.setString(1, r.topic);
        ps.setInt(2, r.partition);
        ps.setLong(3, r.offset);
        ps.setString(4, r.reason.name());
        ps.setString(5, r.detail);
        ps.setBytes(6, r.raw);
    }
}
