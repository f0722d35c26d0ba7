package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.testing.TestServices;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an audit of a 1-hour span costs, on the bench's workload shape ({@code docs/bench.md}: 100
 * events per device per 5-minute window, 4 partitions): the span plus the hour before it that the
 * read also covers ({@code max-future}) produced to a real topic, the table written as the job
 * would, then one audit as the reconciler runs it. It reports time per audited record and the
 * recount's state, never asserts a speed. {@code -Daudit.cost.devices=2000} is the bench's 2,000
 * devices (4.8 million records read); the default is a quick 50.
 */
class AuditCostTest {
    private static final Path WORK = Path.of("target", "it", "audit-cost");
    private static final String TOPIC = "cost-events";
    private static final int PARTITIONS = 4;
    private static final int PER_WINDOW = 100;
    private static final Instant NOW = Instant.parse("2026-11-01T12:00:00Z");
    private static final Rules RULES = Rules.defaults();

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    @Test
    void oneHourSpanAtTheBenchsShape() throws Exception {
        int devices = Integer.getInteger("audit.cost.devices", 50);
        SERVICES.kafka().createTopic(TOPIC, PARTITIONS);
        try (Connection c = SERVICES.postgres().connect()) {
            TestUtils.jobSchema(c); // the job's own schema
        }
        // Two hours and a window of event time up to 10 s before now, one event per device every 3 s.
        long step = RULES.windowMillis() / PER_WINDOW;
        long first = NOW.minus(Duration.ofHours(2)).minus(Duration.ofMinutes(5)).toEpochMilli();
        long last = NOW.minusSeconds(10).toEpochMilli();
        WindowRecount.Counter truth = new WindowRecount.Counter(RULES, Long.MIN_VALUE);
        long produced = 0;
        long produceStart = System.nanoTime();
        Map<Integer, Long> ends = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SERVICES.kafka().bootstrapServers(),
                        ProducerConfig.LINGER_MS_CONFIG,
                        20,
                        ProducerConfig.BATCH_SIZE_CONFIG,
                        256 * 1024,
                        ProducerConfig.COMPRESSION_TYPE_CONFIG,
                        "lz4"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (long ts = first; ts <= last; ts += step) {
                for (int d = 0; d < devices; d++) {
                    String device = String.format("press-%05d", d);
                    int partition = d % PARTITIONS;
                    byte[] key = device.getBytes(StandardCharsets.UTF_8);
                    byte[] value = String.format(
                                    "{\"eventId\":\"%s-%d\",\"deviceId\":\"%s\",\"lineId\":\"L%d\",\"type\":\"PIECE_PRODUCED\",\"ts\":%d,\"count\":1}",
                                    device, ts, device, d % 3, ts)
                            .getBytes(StandardCharsets.UTF_8);
                    p.send(new ProducerRecord<>(TOPIC, partition, ts, key, value));
                    truth.add(new WindowRecount.Input(partition, ts, key, value));
                    ends.merge(partition, 1L, Long::sum);
                    produced++;
                }
            }
        }
        double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers(), "group.id", "lineflow"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            ends.forEach((part, n) -> offsets.put(new TopicPartition(TOPIC, part), new OffsetAndMetadata(n)));
            c.commitSync(offsets);
        }
        write(truth.result(false).rows().values());

        // The recount's state alone: heap held by a counter fed the audited hours, after a GC.
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        Audit.Settings settings = new Audit.Settings(
                SERVICES.kafka().bootstrapServers(),
                Map.of(),
                TOPIC,
                "lineflow",
                Duration.ofHours(1),
                RULES,
                50_000_000,
                SERVICES.postgres().jdbcUrl(),
                null,
                null,
                Duration.ofSeconds(30));
        AuditReport r = Audit.run(settings, Clock.fixed(NOW, ZoneOffset.UTC));
        AuditReport again = Audit.run(settings, Clock.fixed(NOW, ZoneOffset.UTC));
        System.gc();
        long after = memory.getHeapMemoryUsage().getUsed();

        // The recount alone, from memory (no Kafka), for its share of the time and its state.
        List<WindowRecount.Input> sample = new ArrayList<>();
        int perDevice = 2 * 12 * PER_WINDOW; // two hours
        for (long ts = last - perDevice * step; ts <= last && sample.size() < 2_000_000; ts += step) {
            for (int d = 0; d < Math.min(devices, 2000); d++) {
                String device = String.format("press-%05d", d);
                sample.add(new WindowRecount.Input(
                        d % PARTITIONS,
                        ts,
                        device.getBytes(StandardCharsets.UTF_8),
                        String.format(
                                        "{\"eventId\":\"%s-%d\",\"deviceId\":\"%s\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\",\"ts\":%d,\"count\":1}",
                                        device, ts, device, ts)
                                .getBytes(StandardCharsets.UTF_8)));
            }
        }
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        WindowRecount.Counter counter =
                new WindowRecount.Counter(RULES, last - Duration.ofHours(1).toMillis());
        long t0 = System.nanoTime();
        sample.forEach(counter::add);
        double recountSeconds = (System.nanoTime() - t0) / 1e9;
        System.gc();
        long state = memory.getHeapMemoryUsage().getUsed() - heapBefore;
        WindowRecount.Result recounted = counter.result(false);

        String report = String.format(
                "audit cost, 1-hour span, %d devices x %d events per 5-min window (%d partitions), %s%n"
                        + "  produced %,d records in %.1f s; the audit read %,d of them (the span and max-future's hour before it)%n"
                        + "  audit (read + recount + table + judge): %.2f s and %.2f s = %.2f and %.2f us per record read%n"
                        + "  %d rows matched, %d differences, %d not judged, %d with downtime not judged%n"
                        + "  heap retained after the audits, after GC: %+.1f MiB (nothing of the read is kept)%n"
                        + "  recount alone from memory: %,d records in %.2f s = %.2f us per record;"
                        + " its state with every record fed: %.1f MiB for %,d rows = %.0f bytes per row%n",
                devices,
                PER_WINDOW,
                PARTITIONS,
                Instant.now(),
                produced,
                produceSeconds,
                r.recordsRead(),
                r.took().toMillis() / 1000.0,
                again.took().toMillis() / 1000.0,
                r.took().toNanos() / 1000.0 / r.recordsRead(),
                again.took().toNanos() / 1000.0 / again.recordsRead(),
                r.matched(),
                r.differences().size(),
                r.unjudged().size(),
                r.downtimeNotJudged(),
                (after - before) / 1048576.0,
                sample.size(),
                recountSeconds,
                recountSeconds * 1e6 / sample.size(),
                state / 1048576.0,
                recounted.rows().size(),
                (double) state / Math.max(1, recounted.rows().size()));
        System.out.print(report);
        Files.writeString(Path.of("target", "audit-cost.txt"), report);

        assertThat(r.differences()).isEmpty();
        assertThat(r.matched()).isGreaterThanOrEqualTo(devices * 11L);
        assertThat(r.recordsRead()).isLessThan(produced);
    }

    private static void write(Iterable<Row> rows) throws Exception {
        try (Connection c = SERVICES.postgres().connect()) {
            TableRows.write(c, rows, RULES.windowMillis(), null);
        }
    }
}
