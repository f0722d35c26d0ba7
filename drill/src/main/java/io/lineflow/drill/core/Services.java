package io.lineflow.drill.core;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The Kafka broker, PostgreSQL server and S3 server beside the job, which the service faults stop
 * and start; the faults themselves are defined here once, for every backend.
 */
public interface Services {
    void stopPostgres() throws Exception;

    void startPostgres() throws Exception;

    /** The broker stopped and started again on the same data and port. */
    void restartKafka() throws Exception;

    /** The S3 server (checkpoints, savepoints, HA metadata) stopped; its data stays. */
    void stopS3() throws Exception;

    /** The S3 server started again on the same data, address and keys. */
    void startS3() throws Exception;

    /** {@link Fault#DB_OUTAGE}: PostgreSQL stopped for {@code outage}, then started on the same data. */
    default void dbOutage(Duration outage, Consumer<String> log) throws Exception {
        stopPostgres();
        log.accept("  PostgreSQL stopped for " + outage.toSeconds() + " s");
        Pause.sleep(outage.toMillis());
        startPostgres();
        log.accept("  PostgreSQL back");
    }

    /** {@link Fault#S3_OUTAGE}: the S3 server stopped for {@code outage}, then started on the same data. */
    default void s3Outage(Duration outage, Consumer<String> log) throws Exception {
        stopS3();
        log.accept("  S3 server stopped for " + outage.toSeconds() + " s");
        Pause.sleep(outage.toMillis());
        startS3();
        log.accept("  S3 server back");
    }

    /** {@link Fault#KAFKA_RESTART}. */
    default void kafkaRestart(Consumer<String> log) throws Exception {
        restartKafka();
        log.accept("  Kafka broker restarted");
    }
}
