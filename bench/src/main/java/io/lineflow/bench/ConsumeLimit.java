package io.lineflow.bench;

import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The limit: plain Kafka consumers, one thread per Flink slot, each reading its share of the
 * partitions from the start to the end and parsing every value with {@link DeviceEventJson}.
 */
public final class ConsumeLimit {
    private ConsumeLimit() {}

    /** Reads the whole topic; returns the number of accepted events, so parsing is not dead code. */
    public static long run(String bootstrap, String topic, int partitions, int threads) throws Exception {
        DeviceEventJson json = LineflowSettings.rules(new Configuration()).parser();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<TopicPartition> mine = new ArrayList<>();
                for (int p = t; p < partitions; p += threads) {
                    mine.add(new TopicPartition(topic, p));
                }
                parts.add(pool.submit(() -> consume(bootstrap, mine, json)));
            }
            long accepted = 0;
            for (Future<Long> f : parts) {
                accepted += f.get();
            }
            return accepted;
        } finally {
            pool.shutdownNow();
        }
    }

    private static long consume(String bootstrap, List<TopicPartition> partitions, DeviceEventJson json) {
        if (partitions.isEmpty()) {
            return 0;
        }
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long accepted = 0;
            while (!reached(consumer, end)) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    // The wall clock per record, as the job's deserializer reads it.
                    ParsedRecord parsed = json.parse(
                            r.key(), r.value(), r.topic(), r.partition(), r.offset(), System.currentTimeMillis());
                    if (parsed.isAccepted()) {
                        accepted++;
                    }
                }
            }
            return accepted;
        }
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
