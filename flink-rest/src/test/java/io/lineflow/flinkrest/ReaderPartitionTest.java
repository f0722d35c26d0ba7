package io.lineflow.flinkrest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which vertex metric ids name a Kafka reader's partition, and what they say. */
class ReaderPartitionTest {

    @Test
    void aReaderPartitionMetricGivesSubtaskOperatorTopicAndPartition() {
        assertThat(ReaderPartition.of(
                        "3.Source__kafka-source.KafkaSourceReader.topic.device.events.partition.11.currentOffset"))
                .contains(new ReaderPartition(3, "Source__kafka-source", "device.events", 11));
    }

    @Test
    void otherMetricsOfTheReaderAndOfTheVertexAreNotAssignments() {
        assertThat(ReaderPartition.of("0.Source__kafka-source.KafkaSourceReader.topic.t.partition.0.committedOffset"))
                .isEmpty();
        assertThat(ReaderPartition.of("0.Source__kafka-source.KafkaSourceReader.KafkaConsumer.assigned-partitions"))
                .isEmpty();
        assertThat(ReaderPartition.of("0.numRecordsOut")).isEmpty();
        assertThat(ReaderPartition.of("Source__kafka-source.KafkaSourceReader.topic.t.partition.0.currentOffset"))
                .as("no subtask index")
                .isEmpty();
    }
}
