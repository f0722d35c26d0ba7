package io.lineflow.flinkrest;

import java.util.regex.Pattern;

/**
 * The kinds of Kafka reader lineflow recognises in a running job, each by a metric its operator
 * registers per partition it reads (whatever the operator is called): the one definition the
 * reconciler, the drill and the docs' table of recognised sources share.
 */
public enum KafkaReader {
    /**
     * Flink's {@code KafkaSource} (DataStream API, and Flink SQL's {@code kafka} connector): one
     * gauge per split a reader holds, so a split held twice is seen as two assignments.
     */
    KAFKA_SOURCE(
            "Flink KafkaSource",
            "KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset",
            "KafkaSourceReader\\.topic\\.(.+)\\.partition\\.(\\d+)\\.currentOffset",
            true),
    /** The legacy {@code FlinkKafkaConsumer} (connector 3.x and older): one gauge per partition. */
    FLINK_KAFKA_CONSUMER(
            "Flink FlinkKafkaConsumer (legacy)",
            "KafkaConsumer.topic.<topic>.partition.<p>.currentOffsets",
            "KafkaConsumer\\.topic\\.(.+)\\.partition\\.(\\d+)\\.currentOffsets",
            true),
    /**
     * Beam's {@code KafkaIO} read on Beam's Flink runner: Beam's per-partition record-size
     * distribution, which the runner registers in the reading operator's group. Two readers of one
     * partition in a subtask share the name, so assignments cannot be counted: only the rate can
     * show a double read. Beam's splittable-DoFn read registers a backlog gauge under the same
     * prefix, {@code KafkaIOReader_rawSize/backlogBytes_<topic>-<p>}: that one names no topic of
     * its own and is not a partition read.
     */
    BEAM_KAFKA_IO(
            "Beam KafkaIO (Flink runner)",
            "KafkaIOReader_rawSize/<topic>-<p>",
            "KafkaIOReader_rawSize/(?!backlogBytes_)(.+)-(\\d+)",
            false),
    /**
     * Any other reader, taken on the deployment's word: when the topic is named explicitly and no
     * reader of it is recognised, the job's one vertex without inputs, judged by its source
     * operator's output rate. Recognised by no metric of its own ({@link ReaderPartition#of} never
     * returns it).
     */
    SOURCE_VERTEX(
            "the job's only source vertex, its topic named on the deployment",
            "Source__<name>.numRecordsOutPerSecond of the one vertex without inputs",
            null,
            false);

    private final String label;
    private final String metric;
    private final Pattern id;
    private final boolean countsAssignments;

    KafkaReader(String label, String metric, String pattern, boolean countsAssignments) {
        this.label = label;
        this.metric = metric;
        // <subtask>.<operator>.<the reader's own metric>, as a vertex's metric listing names it.
        this.id = pattern == null ? null : Pattern.compile("^(\\d+)\\.(.+)\\." + pattern + "$");
        this.countsAssignments = countsAssignments;
    }

    /** What a report calls this kind of reader. */
    public String label() {
        return label;
    }

    /** The metric it is recognised by, with placeholders: what a finding says it saw. */
    public String metric() {
        return metric;
    }

    /**
     * Whether each assignment of a partition to a reader has a metric of its own, so that a
     * partition held twice shows as two (false for Beam: both copies report under one name).
     */
    public boolean countsAssignments() {
        return countsAssignments;
    }

    /** The pattern of a vertex metric id that names a partition this kind reads; null if none does. */
    Pattern id() {
        return id;
    }
}
