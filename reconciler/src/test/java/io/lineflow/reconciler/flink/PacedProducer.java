package io.lineflow.reconciler.flink;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.Map;

/**
 * Writes records into a topic at a steady rate, spread over its partitions, on a thread of its own
 * until closed: the known produce rate that the duplicate check's ratio is measured against.
 */
final class PacedProducer implements AutoCloseable {

    private final Thread thread;
    private volatile boolean producing = true;

    private PacedProducer(String bootstrap, String topic, int partitions, double perSecond) {
        thread = new Thread(() -> produce(bootstrap, topic, partitions, perSecond), "paced-producer-" + topic);
        thread.setDaemon(true);
    }

    /** Starts writing {@code perSecond} records/s into {@code topic}'s {@code partitions} partitions. */
    static PacedProducer start(String bootstrap, String topic, int partitions, double perSecond) {
        PacedProducer p = new PacedProducer(bootstrap, topic, partitions, perSecond);
        p.thread.start();
        return p;
    }

    private void produce(String bootstrap, String topic, int partitions, double perSecond) {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long start = System.currentTimeMillis();
            long next = 0;
            while (producing) {
                long due = (long) ((System.currentTimeMillis() - start) / 1000.0 * perSecond);
                for (; next < due; next++) {
                    p.send(new ProducerRecord<>(
                            topic,
                            (int) (next % partitions),
                            null,
                            Long.toString(next).getBytes()));
                }
                Thread.sleep(5); // the pace: records due are sent every 5 ms
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        producing = false;
        thread.join(10_000);
    }
}
