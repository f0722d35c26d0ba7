package io.lineflow.flinkrest;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Kafka partition assigned to one reader of a {@code KafkaSource}, as the reader's own metrics
 * say: a reader registers {@code KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset} in
 * its operator's group when the partition's split is added to it, and a vertex's metric listing
 * shows that as {@code <subtask>.<operator>.KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset}.
 * A source is recognised by what it measures, whatever its name.
 */
public record ReaderPartition(int subtask, String operator, String topic, int partition) {

    private static final Pattern ID =
            Pattern.compile("^(\\d+)\\.(.+)\\.KafkaSourceReader\\.topic\\.(.+)\\.partition\\.(\\d+)\\.currentOffset$");

    /** The assignment a vertex metric's id names; empty for every other metric. */
    public static Optional<ReaderPartition> of(String metricId) {
        Matcher m = ID.matcher(metricId);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new ReaderPartition(
                Integer.parseInt(m.group(1)), m.group(2), m.group(3), Integer.parseInt(m.group(4))));
    }
}
