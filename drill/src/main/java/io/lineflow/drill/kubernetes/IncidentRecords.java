package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.TableCheck;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The incident's input and what became of it: numbered records, {@value #RECORDS_PER_SECOND} a
 * second over every partition of the topic, and the rows the incident's job inserted for them
 * into {@code table}, counted in PostgreSQL as copies per record.
 */
final class IncidentRecords implements AutoCloseable {
    private static final int RECORDS_PER_SECOND = 50;
    /** Records sent between two waits for their acknowledgements: a fifth of a second's input. */
    private static final int BATCH = 10;
    /** Records of how many seconds' input each copy count is judged on. */
    private static final Duration SAMPLE = Duration.ofSeconds(30);

    private final KafkaProducer<String, String> kafka;
    private final AtomicLong next = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread = new Thread(this::produce, "incident-producer");
    private volatile Exception failed;
    private final String topic;
    private final int partitions;
    private final TableCheck.Database db;
    private final String table;

    IncidentRecords(String bootstrap, String topic, int partitions, TableCheck.Database db, String table) {
        this.topic = topic;
        this.partitions = partitions;
        this.db = db;
        this.table = table;
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        kafka = new KafkaProducer<>(p);
    }

    void start() {
        thread.setDaemon(true);
        thread.start();
    }

    /** The number of the next record to be sent: every one below it has been acknowledged. */
    long next() {
        if (failed != null) {
            throw new IllegalStateException("the incident's producer failed: " + failed.getMessage(), failed);
        }
        return next.get();
    }

    /**
     * Sends on schedule without waiting for each acknowledgement (a broker slowed by a busy host
     * answers in tens of milliseconds, and one record at a time would then fall behind the rate);
     * every {@value #BATCH} records it waits for all of them, and only then counts them as sent.
     */
    private void produce() {
        long began = System.nanoTime();
        long sent = 0;
        try {
            while (!stop.get()) {
                long wait = began + sent * 1_000_000_000L / RECORDS_PER_SECOND - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                long n = sent++;
                kafka.send(new ProducerRecord<>(topic, (int) (n % partitions), null, Long.toString(n)), (m, e) -> {
                    if (e != null) {
                        failed = e;
                    }
                });
                if (sent % BATCH == 0) {
                    kafka.flush();
                    if (failed != null) {
                        return;
                    }
                    next.set(sent);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failed = e;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(10_000);
        kafka.close(Duration.ofSeconds(5));
    }

    /** Copies per record of the next {@link #SAMPLE} of input, once each of its records is in the table. */
    Copies copiesOver(String when) {
        long first = next();
        Await.orFail(SAMPLE.plusSeconds(10), Duration.ofSeconds(1), SAMPLE.toSeconds() + " s of input " + when, () -> {
            return next() >= first + SAMPLE.toSeconds() * RECORDS_PER_SECOND;
        });
        long last = next() - 1;
        Copies[] seen = {null};
        Await.orFail(
                Duration.ofMinutes(3),
                Duration.ofSeconds(2),
                "every record " + first + "-" + last + " of the incident's input in " + table,
                () -> {
                    seen[0] = count(first, last).orElse(null);
                    return seen[0] != null && seen[0].distinct() == last - first + 1;
                });
        // A record read twice is inserted by both readers at about the same time; one more poll
        // after all are in lets the second copies of the last records land too.
        Await.until(Duration.ofSeconds(20), Duration.ofSeconds(2), () -> {
            Copies again = count(first, last).orElse(seen[0]);
            boolean settled = again.rows() == seen[0].rows();
            seen[0] = again;
            return settled;
        });
        System.out.printf("  %s: %s%n", when, seen[0]);
        return seen[0];
    }

    private Optional<Copies> count(long first, long last) {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("SELECT count(*), count(DISTINCT record) FROM " + table
                        + " WHERE record::bigint BETWEEN ? AND ?")) {
            s.setLong(1, first);
            s.setLong(2, last);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return Optional.of(new Copies(first, last, r.getLong(1), r.getLong(2)));
            }
        } catch (SQLException e) {
            return Optional.empty();
        }
    }

    /** Rows in the table for the records {@code first}..{@code last}, and how many distinct. */
    record Copies(long first, long last, long rows, long distinct) {
        double perRecord() {
            return distinct == 0 ? 0 : (double) rows / distinct;
        }

        @Override
        public String toString() {
            return String.format(
                    "records %d-%d: %d rows for %d distinct records, %.2f copies per record",
                    first, last, rows, distinct, perRecord());
        }
    }
}
