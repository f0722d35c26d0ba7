package io.lineflow.job.sink;

import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.event.RejectedEvent;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;

import java.nio.charset.StandardCharsets;

/**
 * The two PostgreSQL sinks. Both are at-least-once (flushed on every checkpoint) with idempotent
 * statements, which gives an exact table without XA transactions; a row PostgreSQL refuses for
 * its content is kept in {@code rejected_events} as {@code REFUSED_BY_DATABASE} ({@link
 * PostgresSink}).
 */
public final class PostgresSinks {
    private PostgresSinks() {}

    /**
     * Where a refused window row is kept: a "topic" no Kafka record can have (':' is not allowed
     * in topic names), the device id's hash as partition and the window start as offset.
     */
    public static final String REFUSED_ROWS_TOPIC = "lineflow:device_window_stats";

    public static PostgresSink<DeviceWindowStats> windowStats(ReadableConfig conf) {
        return sink(
                conf,
                new DeviceWindowStatsStatement(conf.get(LineflowOptions.SINK_MODE)),
                (row, why) -> new RejectedEvent(
                        REFUSED_ROWS_TOPIC,
                        row.deviceId.hashCode() & Integer.MAX_VALUE,
                        row.windowStart,
                        row.toString().getBytes(StandardCharsets.UTF_8),
                        RejectReason.REFUSED_BY_DATABASE,
                        "device_window_stats row " + row + " refused: " + why));
    }

    public static PostgresSink<RejectedEvent> rejectedEvents(ReadableConfig conf) {
        return sink(
                conf,
                new RejectedEventStatement(),
                (r, why) -> new RejectedEvent(
                        r.topic,
                        r.partition,
                        r.offset,
                        r.raw,
                        RejectReason.REFUSED_BY_DATABASE,
                        "rejected_events row (" + r.reason + ") refused: " + why));
    }

    private static <T> PostgresSink<T> sink(
            ReadableConfig conf, JdbcQueryStatement<T> statement, PostgresSink.Refusal<T> refusal) {
        return new PostgresSink<>(
                connection(conf),
                statement,
                refusal,
                conf.get(LineflowOptions.SINK_BATCH_SIZE),
                conf.get(LineflowOptions.SINK_BATCH_INTERVAL).toMillis(),
                conf.get(LineflowOptions.SINK_MAX_RETRIES));
    }

    static JdbcConnectionOptions connection(ReadableConfig conf) {
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder builder =
                new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                        .withUrl(conf.get(LineflowOptions.JDBC_URL))
                        .withDriverName("org.postgresql.Driver")
                        .withConnectionCheckTimeoutSeconds(10);
        conf.getOptional(LineflowOptions.JDBC_USER).ifPresent(builder::withUsername);
        conf.getOptional(LineflowOptions.JDBC_PASSWORD).ifPresent(builder::withPassword);
        LineflowSettings.withPrefix(conf, LineflowOptions.JDBC_PROPERTIES_PREFIX)
                .forEach((k, v) -> builder.withProperty((String) k, (String) v));
        return builder.build();
    }
}
