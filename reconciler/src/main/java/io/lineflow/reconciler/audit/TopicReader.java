package io.lineflow.reconciler.audit;

import io.lineflow.rules.recount.WindowRecount;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The audit's one read of the topic: every partition from a start (the beginning, or the first
 * offset whose Kafka timestamp is at or after a time, by {@code offsetsForTimes}) to an end (the
 * end offsets as of now, or the offsets the job's consumer group last committed, i.e. what the job
 * had read at its latest checkpoint), each record handed on as it is polled, none kept.
 */
final class TopicReader {
    /** Where each partition's read began and ended, and what makes the read unfit for judging. */
    record Read(long records, Map<Integer, long[]> offsets, List<String> problems) {}

    private TopicReader() {}

    /**
     * Reads {@code topic}; {@code fromTime} null reads from the beginning; {@code group} null reads to
     * the end offsets. More than {@code maxRecords} records fail the read (the audit's bound).
     */
    static Read read(
            Map<String, Object> consumerProps,
            String topic,
            Long fromTime,
            String group,
            long maxRecords,
            Duration timeout,
            Consumer<WindowRecount.Input> sink) {
        Map<String, Object> props = new HashMap<>(consumerProps);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        if (group != null) {
            // Only to read the group's committed offsets: the consumer is assigned, never subscribed,
            // so it does not join the group, and it never commits.
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        List<String> problems = new ArrayList<>();
        Map<Integer, long[]> offsets = new TreeMap<>();
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist or has no partitions");
            }
            for (PartitionInfo p : infos) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
            consumer.assign(partitions);
            Map<TopicPartition, Long> beginning = consumer.beginningOffsets(partitions, timeout);
            Map<TopicPartition, Long> end;
            if (group == null) {
                end = consumer.endOffsets(partitions, timeout);
            } else {
                end = new HashMap<>();
                Map<TopicPartition, OffsetAndMetadata> committed =
                        consumer.committed(new HashSet<>(partitions), timeout);
                for (TopicPartition tp : partitions) {
                    OffsetAndMetadata c = committed.get(tp);
                    if (c == null) {
                        problems.add("the job's consumer group " + group + " has no committed offset on partition "
                                + tp.partition() + " (no checkpoint has completed since it began reading)");
                        end.put(tp, beginning.get(tp));
                    } else {
                        end.put(tp, c.offset());
                    }
                }
            }
            Map<TopicPartition, Long> start = new HashMap<>();
            if (fromTime == null) {
                start.putAll(beginning);
            } else {
                Map<TopicPartition, Long> query = new HashMap<>();
                partitions.forEach(tp -> query.put(tp, fromTime));
                Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, timeout);
                for (TopicPartition tp : partitions) {
                    OffsetAndTimestamp o = found.get(tp);
                    // None at or after the time: every record of the partition is older; nothing to read.
                    start.put(
                            tp,
                            o == null
                                    ? consumer.endOffsets(List.of(tp), timeout).get(tp)
                                    : o.offset());
                }
            }
            for (TopicPartition tp : partitions) {
                long first = start.get(tp);
                long logStart = beginning.get(tp);
                if (logStart > 0 && first == logStart) {
                    // The read starts at the oldest record Kafka still holds: the ones before it are
                    // deleted, and whether they belonged to the read cannot be known.
                    problems.add("Kafka's retention has deleted partition " + tp.partition()
                            + "'s records before offset " + logStart + ", where the read must start");
                }
                if (end.get(tp) < first && group != null) {
                    problems.add("the job's consumer group " + group + " has committed offset " + end.get(tp)
                            + " on partition " + tp.partition() + ", before the read's start " + first
                            + ": the job is further behind than the span");
                }
                offsets.put(tp.partition(), new long[] {first, Math.max(first, end.get(tp))});
                consumer.seek(tp, first);
            }
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < offsets.get(tp.partition())[1])) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                    if (r.offset() < offsets.get(r.partition())[1]) {
                        if (++records > maxRecords) {
                            throw new IllegalStateException("the span holds more than " + maxRecords
                                    + " records (audit.max-records): shorten audit.span or raise the bound");
                        }
                        sink.accept(new WindowRecount.Input(r.partition(), r.timestamp(), r.key(), r.value()));
                    }
                }
            }
        }
        return new Read(records, offsets, problems);
    }

    /** Partitions read, for a report: {@code p0 [12, 340)}. */
    static String describe(Map<Integer, long[]> offsets) {
        List<String> parts = new ArrayList<>();
        offsets.forEach((p, o) -> parts.add("p" + p + " [" + o[0] + ", " + o[1] + ")"));
        return String.join(" ", parts);
    }
}
