package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Await;
import io.lineflow.testing.EmbeddedKafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** The incident's input against a real broker: what it counts as sent is in Kafka. */
class IncidentRecordsTest {
    @TempDir
    Path dir;

    @Test
    void everyRecordBelowNextIsInTheTopicSpreadOverItsPartitions() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir);
                Admin admin = kafka.admin()) {
            kafka.createTopic("incident-in", 3);
            long sent;
            try (IncidentRecords records =
                    new IncidentRecords(kafka.bootstrapServers(), "incident-in", 3, () -> null, "unused")) {
                records.start();
                Await.orFail(
                        Duration.ofSeconds(30), Duration.ofMillis(50), "40 records sent", () -> records.next() >= 40);
                sent = records.next();
                Map<TopicPartition, OffsetSpec> ends = IntStream.range(0, 3)
                        .mapToObj(p -> new TopicPartition("incident-in", p))
                        .collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
                Map<TopicPartition, Long> inKafka = admin.listOffsets(ends).all().get().entrySet().stream()
                        .collect(Collectors.toMap(
                                Map.Entry::getKey, e -> e.getValue().offset()));
                assertThat(inKafka.values().stream().mapToLong(Long::longValue).sum())
                        .as("acknowledged before they are counted")
                        .isGreaterThanOrEqualTo(sent);
                assertThat(inKafka.values()).allMatch(n -> n >= sent / 3);
            }
            assertThat(sent % 10).as("counted a batch at a time").isZero();
        }
    }
}
