package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.drill.core.TimeChart;
import io.lineflow.drill.soak.SoakOptions;
import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakVerdicts;
import io.lineflow.testing.EmbeddedKafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The soak's probes, each on what it measures: files, a process, Kafka; and the sampler that runs them. */
class SoakProbesTest {
    private static final long T0 = 1_796_000_000_000L;

    @TempDir
    Path work;

    private final SoakRecord record =
            new SoakRecord(T0, SoakOptions.parse(List.of("--faults", "tm-kill", "--fault-every", "30min")), 4, 100);

    private List<TimeChart.Point> chart(String chart, String line) {
        return record.charts().getOrDefault(chart, Map.of()).getOrDefault(line, List.of());
    }

    @Test
    void rocksDbFilesAreCountedWithTheirManifestsApartAndTheRunningJobsCheckpointsOnly() throws Exception {
        Files.createDirectories(work.resolve("rocksdb/tm-1/db"));
        Files.write(work.resolve("rocksdb/tm-1/db/000012.sst"), new byte[1000]);
        Files.write(work.resolve("rocksdb/tm-1/db/MANIFEST-000005"), new byte[40]);
        Files.createDirectories(work.resolve("checkpoints/job-2/chk-7"));
        Files.write(work.resolve("checkpoints/job-2/chk-7/_metadata"), new byte[300]);
        Files.createDirectories(work.resolve("checkpoints/job-1/chk-3"));
        Files.write(work.resolve("checkpoints/job-1/chk-3/_metadata"), new byte[7]);

        new RocksDbProbe(work, () -> "job-2").sample(T0, record);

        assertThat(chart(SoakVerdicts.ROCKSDB_BYTES, "TaskManagers' working files"))
                .containsExactly(new TimeChart.Point(T0, 1040));
        assertThat(chart(SoakVerdicts.ROCKSDB_BYTES, "of them MANIFEST files"))
                .containsExactly(new TimeChart.Point(T0, 40));
        assertThat(chart(SoakVerdicts.ROCKSDB_BYTES, "retained checkpoints of the job"))
                .containsExactly(new TimeChart.Point(T0, 300));
        assertThat(chart(SoakVerdicts.ROCKSDB_FILES, "TaskManagers' working files"))
                .containsExactly(new TimeChart.Point(T0, 2));
        assertThat(RocksDbProbe.sizeAndCount(work.resolve("none"), f -> true)).containsExactly(0, 0);
    }

    @Test
    void aProcesssResidentMemoryIsReadWhileItLivesAndOnlyForLiveProcesses() {
        long self = ProcessHandle.current().pid();
        assertThat(RssProbe.rss(self)).isPresent();
        assertThat(RssProbe.rss(self).getAsLong())
                .isGreaterThan(Runtime.getRuntime().totalMemory() / 4);
        assertThat(RssProbe.rss(Long.MAX_VALUE)).isEmpty();

        new RssProbe(() -> List.of(
                        new FlinkProcesses.FlinkProcess("taskmanager-1", self, true),
                        new FlinkProcesses.FlinkProcess("taskmanager-2", self, false)))
                .sample(T0, record);
        assertThat(record.charts().get(SoakVerdicts.RSS)).containsOnlyKeys("taskmanager-1");
    }

    @Test
    void theLagIsTheTopicsEndBeyondTheGroupsCommittedOffsetsAndTheSamplerRunsEachProbeEveryNTicks() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(work.resolve("kafka"));
                Admin admin = kafka.admin()) {
            kafka.createTopic("events", 2);
            try (KafkaProducer<byte[], byte[]> p = TableCheck.producer(kafka.bootstrapServers())) {
                for (int i = 0; i < 10; i++) {
                    p.send(new ProducerRecord<>("events", i % 2, null, new byte[] {(byte) i}));
                }
            }
            admin.alterConsumerGroupOffsets(
                            "lineflow",
                            Map.of(
                                    new TopicPartition("events", 0), new OffsetAndMetadata(3),
                                    new TopicPartition("events", 1), new OffsetAndMetadata(1)))
                    .all()
                    .get();
            Backend running = new Backend() {
                @Override
                public RunState job() {
                    return new RunState(true, T0);
                }

                @Override
                public Long strike(Fault fault) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public TableCheck.Database database() {
                    throw new UnsupportedOperationException();
                }
            };
            LagProbe lag = new LagProbe(running, admin, "events", 2, "lineflow");
            assertThat(lag.lag()).isEqualTo(6L);
            assertThat(new LagProbe(running, admin, "events", 2, "nobody").lag())
                    .isEqualTo(10L);

            List<Long> sampled = new ArrayList<>();
            SoakSampler sampler = new SoakSampler(
                    lag,
                    List.of(
                            (now, r) -> {
                                throw new IllegalStateException("this measure cannot be taken now");
                            },
                            (now, r) -> sampled.add(now)),
                    3,
                    record);
            for (int i = 0; i < 7; i++) {
                sampler.tick();
            }
            assertThat(record.lag()).hasSize(7).allMatch(s -> s.lag() == 6L && s.running());
            assertThat(sampled)
                    .as("ticks 0, 3 and 6, past the probe that failed")
                    .hasSize(3);
        }
    }
}
