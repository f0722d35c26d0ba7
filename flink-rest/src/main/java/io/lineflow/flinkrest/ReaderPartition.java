package io.lineflow.flinkrest;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * One Kafka partition read by one subtask of a vertex, as the reading operator's own metrics say
 * (see {@link KafkaReader} for the metric of each kind): e.g. a {@code KafkaSource} reader
 * registers {@code KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset} in its operator's
 * group when the partition's split is added to it, and a vertex's metric listing shows that as
 * {@code <subtask>.<operator>.KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset}. A
 * source is recognised by what it measures, whatever its name.
 *
 * @param topic the topic as the metric listing writes it ({@link #listedName}): a topic with dots
 *     in its name is listed with underscores in their place
 */
public record ReaderPartition(int subtask, String operator, KafkaReader reader, String topic, int partition) {

    /** The partition a vertex metric's id names; empty for every other metric. */
    public static Optional<ReaderPartition> of(String metricId) {
        for (KafkaReader reader : KafkaReader.values()) {
            Matcher m = reader.id() == null ? null : reader.id().matcher(metricId);
            if (m != null && m.matches()) {
                return Optional.of(new ReaderPartition(
                        Integer.parseInt(m.group(1)), m.group(2), reader, m.group(3), Integer.parseInt(m.group(4))));
            }
        }
        return Optional.empty();
    }

    /**
     * How Flink's REST metric listing writes a Kafka topic's name: its metric query service
     * replaces the characters it reserves (space, {@code .}, {@code :} and {@code ,}) in every
     * group and metric name with {@code _}, and of those a Kafka topic name can hold only the dot.
     * Kafka refuses a topic whose name differs from an existing one only by {@code .} against
     * {@code _}, so on one broker a listed name stands for at most one topic.
     */
    public static String listedName(String kafkaTopic) {
        return kafkaTopic.replace('.', '_');
    }

    /** The topic of {@code brokerTopics} that the metric listing writes as {@code listed}, if one is. */
    public static Optional<String> kafkaName(String listed, Collection<String> brokerTopics) {
        List<String> named =
                brokerTopics.stream().filter(t -> listedName(t).equals(listed)).toList();
        return named.size() == 1 ? Optional.of(named.get(0)) : Optional.empty();
    }
}
