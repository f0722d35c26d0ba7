package io.lineflow.bench;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.EventType;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Device events streamed into Kafka without holding them in memory: every device sends exactly
 * {@code eventsPerWindow} events in every window, in time order, with a stop inside the window
 * for every fourth (device, window). Device {@code d} goes to partition {@code d % partitions}.
 */
public final class Workload {
    public static final long WINDOW_MILLIS = Duration.ofMinutes(5).toMillis();

    private Workload() {}

    /** A window boundary two days back: old enough for any clock, recent enough to be valid. */
    public static long start() {
        long t = System.currentTimeMillis() - Duration.ofDays(2).toMillis();
        return t - Math.floorMod(t, WINDOW_MILLIS);
    }

    public static String device(int d) {
        return String.format("dev-%06d", d);
    }

    /** The event {@code k} of device {@code d} in window {@code w}. */
    public static DeviceEvent event(int d, int w, int k, int eventsPerWindow, long start) {
        long ws = start + w * WINDOW_MILLIS;
        long ts = ws + (k * WINDOW_MILLIS + WINDOW_MILLIS / 2) / eventsPerWindow;
        EventType type = EventType.PIECE_PRODUCED;
        if ((d + w) % 4 == 1 && k == eventsPerWindow / 3) {
            type = EventType.DOWNTIME_START;
        } else if ((d + w) % 4 == 1 && k == eventsPerWindow / 3 + 1) {
            type = EventType.DOWNTIME_END;
        }
        String device = device(d);
        return new DeviceEvent(
                device + "-" + w + "-" + k,
                device,
                "L" + (d % 8 + 1),
                type,
                ts,
                type == EventType.PIECE_PRODUCED ? 1 : 0,
                type == EventType.DOWNTIME_START ? "jam" : null);
    }

    /** Produces the whole throughput workload; returns the number of records. */
    public static long produce(String bootstrap, String topic, BenchSettings s, long start) {
        long n = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            for (int w = 0; w < s.windows(); w++) {
                for (int k = 0; k < s.eventsPerWindow; k++) {
                    for (int d = 0; d < s.devices; d++) {
                        send(producer, topic, d % s.partitions, event(d, w, k, s.eventsPerWindow, start));
                        n++;
                    }
                }
            }
            producer.flush();
        }
        return n;
    }

    static void send(KafkaProducer<byte[], byte[]> producer, String topic, int partition, DeviceEvent e) {
        producer.send(new ProducerRecord<>(
                topic, partition, e.deviceId.getBytes(StandardCharsets.UTF_8), DeviceEventJson.toJson(e)));
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024);
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }
}
