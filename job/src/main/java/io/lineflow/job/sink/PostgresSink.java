package io.lineflow.job.sink;

import io.lineflow.job.ClassLoaderRelease;
import io.lineflow.rules.event.PgText;
import io.lineflow.rules.event.RejectedEvent;

import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.datasource.connections.SimpleJdbcConnectionProvider;
import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * At-least-once batch writer to PostgreSQL that tells a row the database will never take from a
 * failure that may pass.
 *
 * <p>A batch that fails with a data error (SQLState class 22 data exception, 23 integrity
 * constraint violation or 54 program limit exceeded: the same row fails the same way on every
 * retry) is written again row by row; each row refused for such a reason is kept in {@code
 * rejected_events} as {@code REFUSED_BY_DATABASE} and counted in the metric {@code refusedRows},
 * and the job goes on. Any other failure (connection lost, server down, serialization) is
 * retried after a reconnect up to {@code maxRetries} times and then fails the job, which recovers
 * from its last checkpoint, as with flink-connector-jdbc's sink. Rows are flushed on every
 * checkpoint and at the end of input, so the statements' upserts give an exact table.
 *
 * <p>Why not flink-connector-jdbc's {@code JdbcSink}: it retries a batch as a whole whatever the
 * error, so one refused row fails it on every retry and loops the job; its batch is not reachable
 * from outside. This writer keeps its connection handling ({@link SimpleJdbcConnectionProvider})
 * and statement interface ({@link JdbcQueryStatement}).
 */
public final class PostgresSink<T> implements WriterSink<T> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PostgresSink.class);

    /** What {@code rejected_events} keeps of a row the database refused, given why. */
    public interface Refusal<T> extends Serializable {
        RejectedEvent keep(T row, String why);
    }

    private final JdbcConnectionOptions connection;
    private final JdbcQueryStatement<T> statement;
    private final Refusal<T> refusal;
    private final int batchSize;
    private final long batchIntervalMillis;
    private final int maxRetries;

    PostgresSink(
            JdbcConnectionOptions connection,
            JdbcQueryStatement<T> statement,
            Refusal<T> refusal,
            int batchSize,
            long batchIntervalMillis,
            int maxRetries) {
        this.connection = connection;
        this.statement = statement;
        this.refusal = refusal;
        this.batchSize = batchSize;
        this.batchIntervalMillis = batchIntervalMillis;
        this.maxRetries = maxRetries;
    }

    /** Whether {@code e} says the row itself is unacceptable, so a retry would fail the same way. */
    static boolean isDataError(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if (state != null && state.length() == 5) {
                return state.startsWith("22") || state.startsWith("23") || state.startsWith("54");
            }
        }
        return false;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        ClassLoaderRelease.registerOn(context.getUserCodeClassLoader());
        return new Writer(
                context.getProcessingTimeService(),
                context.metricGroup().counter("refusedRows"),
                context.isObjectReuseEnabled() ? context.createInputSerializer() : null);
    }

    /** One subtask's buffer and connection. */
    private final class Writer implements SinkWriter<T> {
        private final SimpleJdbcConnectionProvider connections = new SimpleJdbcConnectionProvider(connection);
        private final RejectedEventStatement keep = new RejectedEventStatement();
        private final List<T> buffer = new ArrayList<>();
        private final ProcessingTimeService time;
        private final Counter refusedRows;
        /** Copies rows before buffering them when the job reuses objects; null otherwise. */
        private final TypeSerializer<T> copier;

        private boolean flushScheduled;

        Writer(ProcessingTimeService time, Counter refusedRows, TypeSerializer<T> copier) {
            this.time = time;
            this.refusedRows = refusedRows;
            this.copier = copier;
        }

        @Override
        public void write(T row, Context context) throws IOException {
            buffer.add(copier == null ? row : copier.copy(row));
            if (buffer.size() >= batchSize) {
                flushBuffer();
            } else if (batchIntervalMillis > 0 && !flushScheduled) {
                flushScheduled = true;
                time.registerTimer(time.getCurrentProcessingTime() + batchIntervalMillis, at -> {
                    flushScheduled = false;
                    flushBuffer();
                });
            }
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            flushBuffer();
        }

        @Override
        public void close() {
            connections.closeConnection();
        }

        private void flushBuffer() throws IOException {
            if (buffer.isEmpty()) {
                return;
            }
            for (int attempt = 0; ; attempt++) {
                try {
                    write(buffer);
                    buffer.clear();
                    return;
                } catch (SQLException | ClassNotFoundException e) {
                    if (attempt >= maxRetries) {
                        throw new IOException(
                                "writing " + buffer.size() + " rows to PostgreSQL failed " + (attempt + 1) + " times",
                                e);
                    }
                    LOG.warn("Writing {} rows failed (attempt {}); reconnecting", buffer.size(), attempt + 1, e);
                    connections.closeConnection();
                    try {
                        Thread.sleep(1000L * attempt);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while retrying a write", ie);
                    }
                }
            }
        }

        /** Writes {@code rows} in one batch, or row by row if the batch holds a refused row. */
        private void write(List<T> rows) throws SQLException, ClassNotFoundException {
            Connection c = connections.getOrEstablishConnection();
            try (PreparedStatement ps = c.prepareStatement(statement.query())) {
                try {
                    for (T row : rows) {
                        statement.statement(ps, row);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                    return;
                } catch (SQLException e) {
                    if (!isDataError(e)) {
                        throw e;
                    }
                    ps.clearBatch();
                }
                // Autocommit: the failed batch left nothing behind, and each row below is its
                // own transaction. A row written twice is overwritten by the upsert.
                List<RejectedEvent> refused = new ArrayList<>();
                for (T row : rows) {
                    try {
                        statement.statement(ps, row);
                        ps.executeUpdate();
                    } catch (SQLException e) {
                        if (!isDataError(e)) {
                            throw e;
                        }
                        refused.add(refusal.keep(row, "SQLState " + e.getSQLState() + ": " + e.getMessage()));
                    }
                }
                keep(c, refused);
            }
        }

        private void keep(Connection c, List<RejectedEvent> refused) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(keep.query())) {
                for (RejectedEvent r : refused) {
                    refusedRows.inc();
                    LOG.error("PostgreSQL refused a row; kept in rejected_events: {}", r);
                    try {
                        keep.statement(ps, r);
                        ps.executeUpdate();
                    } catch (SQLException e) {
                        if (!isDataError(e)) {
                            throw e;
                        }
                        // Even its rejection is refused (a schema that no longer fits): the log
                        // above and the metric are all that is left, which beats a restart loop.
                        LOG.error("PostgreSQL refused to keep the refused row too: {}", PgText.escaped(e.getMessage()));
                    }
                }
            }
        }
    }
}
