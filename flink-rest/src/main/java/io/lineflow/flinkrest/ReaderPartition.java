package io.lineflow.flinkrest;

import java.util.Optional;
import java.util.regex.Matcher;

/**
 * One Kafka partition read by one subtask of a vertex, as the reading operator's own metrics say
 * (see {@link KafkaReader} for the metric of each kind): e.g. a {@code KafkaSource} reader
 * registers {@code KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset} in its operator's
 * group when the partition's split is added to it, and a vertex's metric listing shows that as
 * {@code <subtask>.<operator>.KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset}. A
 * source is recognised by what it measures, whatever its name.
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
}
