package io.lineflow.drill.local;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.soak.Recovery;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The job's state and its consumer lag: records in the topic beyond the offsets the job's group
 * committed (it commits on checkpoints, so a steady lag is a few intervals of input).
 */
record LagProbe(Backend backend, Admin admin, String topic, int partitions, String group) {
    Recovery.LagSample sample(long now) {
        Backend.RunState job = backend.job();
        return new Recovery.LagSample(now, job.running(), job.runningSince(), lag());
    }

    /** The lag now; null when Kafka does not answer within 5 s. */
    Long lag() {
        try {
            Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, partitions)
                    .mapToObj(p -> new TopicPartition(topic, p))
                    .collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
            long end = admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS).values().stream()
                    .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
                    .sum();
            long committed = admin
                    .listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(5, TimeUnit.SECONDS)
                    .values()
                    .stream()
                    .filter(Objects::nonNull)
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
            return end - committed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception e) {
            return null;
        }
    }
}
