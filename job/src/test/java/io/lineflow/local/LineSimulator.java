package io.lineflow.local;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.EventType;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A production line in fast forward: N devices producing pieces, now and then stopping for a
 * while, and a sprinkle of the input a real line also sends — malformed records, producer
 * retries, late and unknown events. Event time runs {@code acceleration} times faster than the
 * wall clock, and ends at "now", so nothing is stamped in the future.
 */
final class LineSimulator implements Runnable {
    /** What the simulator has sent, by kind. */
    static final class Counts {
        final AtomicLong pieces = new AtomicLong();
        final AtomicLong stops = new AtomicLong();
        final AtomicLong stopEnds = new AtomicLong();
        final AtomicLong malformed = new AtomicLong();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong late = new AtomicLong();
        final AtomicLong unknownType = new AtomicLong();

        long total() {
            return pieces.get()
                    + stops.get()
                    + stopEnds.get()
                    + malformed.get()
                    + duplicates.get()
                    + late.get()
                    + unknownType.get();
        }
    }

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final int devices;
    private final double piecesPerMinute;
    private final long acceleration;
    private final long eventTimeStart;
    private final long wallStart;
    private final Random random = new Random(7);
    private final Counts counts = new Counts();
    private volatile boolean running = true;

    /** Per device: next piece time and, while stopped, when the stop ends. */
    private final long[] nextPiece;

    private final long[] stoppedUntil;
    private final DeviceEvent[] lastSent;

    LineSimulator(
            String bootstrap,
            String topic,
            int devices,
            double piecesPerMinute,
            long acceleration,
            long eventTimeStart) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        this.producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.devices = devices;
        this.piecesPerMinute = piecesPerMinute;
        this.acceleration = acceleration;
        this.eventTimeStart = eventTimeStart;
        this.wallStart = System.currentTimeMillis();
        this.nextPiece = new long[devices];
        this.stoppedUntil = new long[devices];
        this.lastSent = new DeviceEvent[devices];
        for (int d = 0; d < devices; d++) {
            nextPiece[d] = eventTimeStart + random.nextInt(10_000);
        }
    }

    Counts counts() {
        return counts;
    }

    /** The simulated event time now. */
    long eventTimeNow() {
        return eventTimeStart + (System.currentTimeMillis() - wallStart) * acceleration;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        try {
            while (running) {
                long now = eventTimeNow();
                for (int d = 0; d < devices; d++) {
                    advance(d, now);
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            producer.flush();
            producer.close();
        }
    }

    private void advance(int d, long now) {
        String device = String.format("press-%02d", d + 1);
        String line = "L" + (d % 3 + 1);
        long meanGap = Math.round(60_000 / piecesPerMinute);
        while (nextPiece[d] <= now) {
            long ts = nextPiece[d];
            if (stoppedUntil[d] > 0) {
                if (ts < stoppedUntil[d]) {
                    nextPiece[d] = stoppedUntil[d];
                    continue;
                }
                counts.stopEnds.incrementAndGet();
                send(d, event(device, line, EventType.DOWNTIME_END, stoppedUntil[d], 0, null));
                stoppedUntil[d] = 0;
            }
            if (random.nextDouble() < 0.004) { // about one stop per 250 pieces
                counts.stops.incrementAndGet();
                send(
                        d,
                        event(
                                device,
                                line,
                                EventType.DOWNTIME_START,
                                ts,
                                0,
                                random.nextBoolean() ? "jam" : "material"));
                stoppedUntil[d] = ts + 30_000 + random.nextInt(8 * 60_000);
                nextPiece[d] = stoppedUntil[d];
                continue;
            }
            counts.pieces.incrementAndGet();
            send(d, event(device, line, EventType.PIECE_PRODUCED, ts, 1, null));
            sprinkle(d, device, line, ts);
            nextPiece[d] = ts + meanGap / 2 + random.nextInt((int) meanGap);
        }
    }

    /** Now and then, the kind of input a real line also produces. */
    private void sprinkle(int d, String device, String line, long ts) {
        double r = random.nextDouble();
        if (r < 0.003) {
            counts.malformed.incrementAndGet();
            raw(device, ("{\"deviceId\":\"" + device + "\",\"type\":\"PIECE_PRO").getBytes(StandardCharsets.UTF_8));
        } else if (r < 0.006) {
            counts.duplicates.incrementAndGet(); // a producer retry of the last event
            raw(device, DeviceEventJson.toJson(lastSent[d]));
        } else if (r < 0.008) {
            counts.late.incrementAndGet(); // a device that was offline for 20 minutes
            raw(
                    device,
                    DeviceEventJson.toJson(event(device, line, EventType.PIECE_PRODUCED, ts - 20 * 60_000, 1, null)));
        } else if (r < 0.009) {
            counts.unknownType.incrementAndGet();
            raw(
                    device,
                    ("{\"eventId\":\"" + UUID.randomUUID() + "\",\"deviceId\":\"" + device + "\",\"lineId\":\"" + line
                                    + "\",\"type\":\"SELF_DESTRUCT\",\"ts\":" + ts + "}")
                            .getBytes(StandardCharsets.UTF_8));
        }
    }

    private static DeviceEvent event(String device, String line, EventType type, long ts, int count, String reason) {
        return new DeviceEvent(UUID.randomUUID().toString(), device, line, type, ts, count, reason);
    }

    private void send(int d, DeviceEvent e) {
        lastSent[d] = e;
        raw(e.deviceId, DeviceEventJson.toJson(e));
    }

    private void raw(String key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value));
    }
}
