package io.lineflow.drill.core;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The Kafka broker and PostgreSQL server beside the job, which the service faults stop and start;
 * the faults themselves are defined here once, for every backend.
 */
public interface Services {
    void stopPostgres() throws Exception;

    void startPostgres() throws Exception;

    /** The broker stopped and started again on the same data and port. */
    void restartKafka() throws Exception;

    /** {@link Fault#DB_OUTAGE}: PostgreSQL stopped for {@code outage}, then started on the same data. */
    default void dbOutage(Duration outage, Consumer<String> log) throws Exception {
        stopPostgres();
        log.accept("  PostgreSQL stopped for " + outage.toSeconds() + " s");
        Pause.sleep(outage.toMillis());
        startPostgres();
        log.accept("  PostgreSQL back");
    }

    /** {@link Fault#KAFKA_RESTART}. */
    default void kafkaRestart(Consumer<String> log) throws Exception {
        restartKafka();
        log.accept("  Kafka broker restarted");
    }
}
