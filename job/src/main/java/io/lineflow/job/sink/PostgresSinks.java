package io.lineflow.job.sink;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.config.LineflowOptions;
import io.lineflow.job.event.RejectedEvent;
import io.lineflow.job.functions.DeviceWindowStats;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;
import org.apache.flink.connector.jdbc.datasource.statements.JdbcQueryStatement;

/**
 * The two PostgreSQL sinks. Both are at-least-once (flushed on every checkpoint) with idempotent
 * statements, which gives an exact table without XA transactions.
 */
public final class PostgresSinks {
    private PostgresSinks() {}

    public static JdbcSink<DeviceWindowStats> windowStats(ReadableConfig conf) {
        return sink(conf, new DeviceWindowStatsStatement(conf.get(LineflowOptions.SINK_MODE)));
    }

    public static JdbcSink<RejectedEvent> rejectedEvents(ReadableConfig conf) {
        return sink(conf, new RejectedEventStatement());
    }

    private static <T> JdbcSink<T> sink(ReadableConfig conf, JdbcQueryStatement<T> statement) {
        return JdbcSink.<T>builder()
                .withQueryStatement(statement)
                .withExecutionOptions(
                        JdbcExecutionOptions.builder()
                                .withBatchSize(conf.get(LineflowOptions.SINK_BATCH_SIZE))
                                .withBatchIntervalMs(
                                        conf.get(LineflowOptions.SINK_BATCH_INTERVAL).toMillis())
                                .withMaxRetries(conf.get(LineflowOptions.SINK_MAX_RETRIES))
                                .build())
                .buildAtLeastOnce(connection(conf));
    }

    static JdbcConnectionOptions connection(ReadableConfig conf) {
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder builder =
                new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
                        .withUrl(conf.get(LineflowOptions.JDBC_URL))
                        .withDriverName("org.postgresql.Driver")
                        .withConnectionCheckTimeoutSeconds(10);
        conf.getOptional(LineflowOptions.JDBC_USER).ifPresent(builder::withUsername);
        conf.getOptional(LineflowOptions.JDBC_PASSWORD).ifPresent(builder::withPassword);
        JobConfig.withPrefix(conf, LineflowOptions.JDBC_PROPERTIES_PREFIX)
                .forEach((k, v) -> builder.withProperty((String) k, (String) v));
        return builder.build();
    }
}
