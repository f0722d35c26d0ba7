package io.lineflow.flinkrest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.List;

/** Which vertex metric ids name a Kafka reader's partition, and what they say. */
class ReaderPartitionTest {

    @Test
    void aReaderPartitionMetricGivesSubtaskOperatorTopicAndPartition() {
        // The topic plant.device.events as Flink lists it: its dots written as underscores.
        assertThat(
                        ReaderPartition.of(
                                "3.Source__kafka-source.KafkaSourceReader.topic.plant_device_events.partition.11.currentOffset"))
                .contains(new ReaderPartition(
                        3, "Source__kafka-source", KafkaReader.KAFKA_SOURCE, "plant_device_events", 11));
    }

    @Test
    void aTopicIsListedWithUnderscoresForItsDots() {
        assertThat(ReaderPartition.listedName("plant.line1.events")).isEqualTo("plant_line1_events");
        assertThat(ReaderPartition.listedName("line-events_v2")).isEqualTo("line-events_v2");
    }

    @Test
    void aListedNameIsTheBrokersTopicThatIsListedSo() {
        List<String> broker = List.of("plant.line1.events", "line_events", "orders");
        assertThat(ReaderPartition.kafkaName("plant_line1_events", broker)).contains("plant.line1.events");
        assertThat(ReaderPartition.kafkaName("line_events", broker)).contains("line_events");
        assertThat(ReaderPartition.kafkaName("backlogBytes_orders", broker))
                .as("a name no topic of the broker is listed as")
                .isEmpty();
    }

    @Test
    void theLegacyConsumersPartitionGaugeIsRecognisedAsSuch() {
        assertThat(ReaderPartition.of(
                        "1.Source__Custom_Source.KafkaConsumer.topic.line-events.partition.2.currentOffsets"))
                .contains(new ReaderPartition(
                        1, "Source__Custom_Source", KafkaReader.FLINK_KAFKA_CONSUMER, "line-events", 2));
        assertThat(ReaderPartition.of(
                        "1.Source__Custom_Source.KafkaConsumer.topic.line-events.partition.2.committedOffsets"))
                .as("the committed offset is not a reader's position")
                .isEmpty();
    }

    @Test
    void beamKafkaIoIsRecognisedByItsPerPartitionSizeDistribution() {
        // The topic may contain dashes: the partition is what follows the last one.
        assertThat(ReaderPartition.of("0.Source__ReadFromKafka/KafkaIO.Read.KafkaIOReader_rawSize/line-events-11"))
                .contains(new ReaderPartition(
                        0, "Source__ReadFromKafka/KafkaIO.Read", KafkaReader.BEAM_KAFKA_IO, "line-events", 11));
        assertThat(ReaderPartition.of(
                        "0.Source__ReadFromKafka/KafkaIO.Read.KafkaIOReader_rawSize/backlogBytes_line-events-11"))
                .as("the splittable-DoFn read's backlog gauge names no topic of its own")
                .isEmpty();
        assertThat(KafkaReader.BEAM_KAFKA_IO.countsAssignments())
                .as("two readers of one partition in a subtask report under one name")
                .isFalse();
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
