package io.lineflow.testing;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.EventType;
import io.lineflow.rules.event.RejectReason;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Input whose correct table is known cell by cell: every device produces exactly K pieces in
 * every window, with scripted stops (some inside a window, some spanning two), plus one malformed
 * record, one unknown type and one producer retry per window, which must be rejected.
 *
 * <p>Device {@code d} goes to partition {@code d % partitions}, so the end offsets are known
 * before anything is produced.
 */
public final class DeterministicInput {
    /** One Kafka record. */
    public static final class Record {
        public final int partition;
        public final String key;
        public final byte[] value;

        Record(int partition, String key, byte[] value) {
            this.partition = partition;
            this.key = key;
            this.value = value;
        }
    }

    public final List<Record> records = new ArrayList<>();
    /** For generated input: the index in {@link #records} of each window's first record. */
    private final List<Integer> windowFirstRecord = new ArrayList<>();

    public final Map<RejectReason, Long> rejections = new EnumMap<>(RejectReason.class);
    public final long windowMillis;
    public final int partitions;

    private DeterministicInput(long windowMillis, int partitions) {
        this.windowMillis = windowMillis;
        this.partitions = partitions;
    }

    public static String device(int d) {
        return String.format("press-%03d", d);
    }

    /**
     * @param start first window start (epoch millis, a multiple of {@code windowMillis})
     */
    public static DeterministicInput generate(
            int devices, int windows, int piecesPerWindow, long windowMillis, long start, int partitions) {
        return generate(devices, 0, windows, windows, piecesPerWindow, windowMillis, start, partitions);
    }

    /**
     * Windows {@code [from, to)} of the input {@link #generate(int, int, int, long, long, int)}
     * makes for {@code windows} windows ({@link Integer#MAX_VALUE}: an input without end), record
     * for record: a long run produces its input a slice at a time instead of holding all of it.
     * The slices of one input, concatenated, are that input.
     *
     * @param start the start of window 0, not of window {@code from}
     */
    public static DeterministicInput generate(
            int devices,
            int from,
            int to,
            int windows,
            int piecesPerWindow,
            long windowMillis,
            long start,
            int partitions) {
        if (from < 0 || from > to || to > windows) {
            throw new IllegalArgumentException(
                    "windows [" + from + ", " + to + ") are not a slice of an input of " + windows);
        }
        DeterministicInput in = new DeterministicInput(windowMillis, partitions);
        for (int w = from; w < to; w++) {
            in.windowFirstRecord.add(in.records.size());
            long ws = start + w * windowMillis;
            List<DeviceEvent> events = new ArrayList<>();
            for (int d = 0; d < devices; d++) {
                String device = device(d);
                String line = "L" + (d % 3 + 1);
                for (int k = 0; k < piecesPerWindow; k++) {
                    long ts = ws + (k * windowMillis + windowMillis / 2) / piecesPerWindow;
                    events.add(event(device, line, ws / windowMillis, "p" + k, EventType.PIECE_PRODUCED, ts, 1));
                }
                switch ((d + w) % 4) {
                    case 1: // a stop inside the window
                        events.add(event(
                                device,
                                line,
                                ws / windowMillis,
                                "s",
                                EventType.DOWNTIME_START,
                                ws + windowMillis * 2 / 5 + 7,
                                0));
                        events.add(event(
                                device,
                                line,
                                ws / windowMillis,
                                "e",
                                EventType.DOWNTIME_END,
                                ws + windowMillis * 3 / 5 + 11,
                                0));
                        break;
                    case 2: // a stop running into the next window
                        if (w + 1 < windows) {
                            events.add(event(
                                    device,
                                    line,
                                    ws / windowMillis,
                                    "s",
                                    EventType.DOWNTIME_START,
                                    ws + windowMillis * 9 / 10 + 3,
                                    0));
                            events.add(event(
                                    device,
                                    line,
                                    ws / windowMillis,
                                    "e",
                                    EventType.DOWNTIME_END,
                                    ws + windowMillis * 11 / 10 + 5,
                                    0));
                        }
                        break;
                    default:
                }
            }
            events.sort(Comparator.comparingLong(e -> e.ts));
            for (DeviceEvent e : events) {
                in.add(e);
            }
            // One of each kind of bad record per window, spread over the devices.
            int bad = w % devices;
            String badDevice = device(bad);
            in.records.add(
                    new Record(bad % partitions, badDevice, "{\"eventId\":\"broken".getBytes(StandardCharsets.UTF_8)));
            in.count(RejectReason.MALFORMED_JSON);
            DeviceEvent unknown = event(badDevice, "L1", ws / windowMillis, "u", EventType.PIECE_PRODUCED, ws + 1, 1);
            in.records.add(new Record(
                    bad % partitions,
                    badDevice,
                    new String(DeviceEventJson.toJson(unknown), StandardCharsets.UTF_8)
                            .replace("PIECE_PRODUCED", "COFFEE_BREAK")
                            .getBytes(StandardCharsets.UTF_8)));
            in.count(RejectReason.UNKNOWN_TYPE);
            DeviceEvent retried = events.get(events.size() / 2);
            in.records.add(new Record(
                    partitionOf(retried.deviceId, partitions), retried.deviceId, DeviceEventJson.toJson(retried)));
            in.count(RejectReason.DUPLICATE);
        }
        return in;
    }

    /**
     * The index of the record halfway through generated window {@code w} (0-based, counted from the
     * first window generated): a fault made
     * there leaves that window open, half counted, in whatever state the job holds.
     */
    public int middleOf(int w) {
        int first = windowFirstRecord.get(w);
        int next = w + 1 < windowFirstRecord.size() ? windowFirstRecord.get(w + 1) : records.size();
        return (first + next) / 2;
    }

    /** Input of exactly these events, produced in this order: a scripted case. */
    public static DeterministicInput of(List<DeviceEvent> events, long windowMillis, int partitions) {
        DeterministicInput in = new DeterministicInput(windowMillis, partitions);
        events.forEach(in::add);
        return in;
    }

    /**
     * An event whose id names its device and its window by number since the epoch, so inputs
     * generated for different time ranges (the Kubernetes drill's scenarios, one after another on
     * one job) never share an id.
     */
    private static DeviceEvent event(
            String device, String line, long window, String suffix, EventType type, long ts, int count) {
        return new DeviceEvent(device + "-w" + window + "-" + suffix, device, line, type, ts, count, null);
    }

    private void add(DeviceEvent e) {
        records.add(new Record(partitionOf(e.deviceId, partitions), e.deviceId, DeviceEventJson.toJson(e)));
    }

    private void count(RejectReason reason) {
        rejections.merge(reason, 1L, Long::sum);
    }

    static int partitionOf(String device, int partitions) {
        return Integer.parseInt(device.substring(device.indexOf('-') + 1)) % partitions;
    }

    /** The end offset of every partition once all records are produced to an empty topic. */
    public Map<TopicPartition, Long> endOffsets(String topic) {
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            ends.put(new TopicPartition(topic, p), 0L);
        }
        for (Record r : records) {
            ends.merge(new TopicPartition(topic, r.partition), 1L, Long::sum);
        }
        return ends;
    }

    /** Produces {@code records[from, to)} and waits until Kafka has acknowledged them. */
    public void produce(String bootstrap, String topic, int from, int to) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // One batch in flight per broker: with several, a retried first batch can meet an
        // OutOfOrderSequenceException on a loaded broker and be dropped after the delivery timeout.
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (Record r : records.subList(from, to)) {
                sent.add(producer.send(
                        new ProducerRecord<>(topic, r.partition, r.key.getBytes(StandardCharsets.UTF_8), r.value)));
            }
            producer.flush();
            // A record Kafka did not take would make the expected table wrong, not the job: say so.
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("Kafka did not accept a test record", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Appends one event per partition at {@code ts}, from devices {@code tick-<partition>}, so that
     * every partition's watermark passes the last real window and it closes. Their own window
     * stays open.
     */
    public void addWatermarkTicks(long ts) {
        for (int p = 0; p < partitions; p++) {
            DeviceEvent tick =
                    new DeviceEvent("tick-" + p + "-" + ts, "tick-" + p, "L0", EventType.PIECE_PRODUCED, ts, 1, null);
            records.add(new Record(p, tick.deviceId, DeviceEventJson.toJson(tick)));
        }
    }

    /** All produced records: counted plus rejected. */
    public long total() {
        return records.size();
    }
}
