package io.lineflow.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.event.DeviceEventSerializer;
import io.lineflow.job.state.BoundedRocksDBManifest;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.settings.LineflowOptions;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageLoader;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.api.environment.CheckpointConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The job graph's uids are part of the savepoint format: a renamed or missing uid strands that
 * operator's state at the next upgrade. Pinned here, as the names of the operators they belong to.
 */
class JobGraphTest {
    /** The job's configuration from a command line with the required keys and {@code extra}. */
    private static Configuration conf(String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--lineflow.kafka.bootstrap-servers", "127.0.0.1:9",
                "--lineflow.jdbc.url", "jdbc:postgresql://127.0.0.1:9/lineflow",
                "--state.checkpoints.dir", "file:///tmp/lineflow-job-graph-test"));
        args.addAll(List.of(extra));
        return JobConfig.load(args.toArray(String[]::new), Map.of(), new Configuration());
    }

    private static StreamExecutionEnvironment jobEnvironment() {
        Configuration conf = conf();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        LineflowJob.configure(env, conf);
        LineflowJob.attach(env, conf, LineflowJob.kafkaSource(conf).build());
        return env;
    }

    @Test
    void everyOperatorHasItsPinnedUid() {
        Map<String, String> uidByName = jobEnvironment().getStreamGraph().getStreamNodes().stream()
                .collect(Collectors.toMap(StreamNode::getOperatorName, StreamNode::getTransformationUID));
        assertThat(uidByName)
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "Source: kafka-source", "kafka-source",
                        "route rejected", "route-rejected",
                        "count device windows", "count-device-windows",
                        "carry downtime", "carry-downtime",
                        "count rejections", "count-rejections",
                        "device_window_stats upsert: Writer", "device-window-stats-sink",
                        "rejected_events insert: Writer", "rejected-events-sink"));
    }

    /**
     * The event is a plain class of the rules module, so Flink would make it a POJO: only the
     * pipeline's explicit type gives its streams the event's own serializer.
     */
    @Test
    void everyStreamOfEventsUsesTheEventSerializer() {
        List<TypeSerializer<?>> eventSerializers = jobEnvironment().getStreamGraph().getStreamNodes().stream()
                .flatMap(n ->
                        Stream.concat(Stream.of(n.getTypeSerializerOut()), Arrays.stream(n.getTypeSerializersIn())))
                .filter(Objects::nonNull)
                .filter(s -> s.createInstance() instanceof DeviceEvent)
                .collect(Collectors.toList());
        // Out of "route rejected", into "count device windows"; knowing the job's topic, which
        // then travels as one byte.
        String topic = conf().get(LineflowOptions.KAFKA_TOPIC);
        assertThat(topic).isNotBlank();
        assertThat(eventSerializers).hasSize(2).allMatch(s -> s.equals(new DeviceEventSerializer(topic)));
    }

    /** What {@link LineflowJob#configure} leaves in the environment, read back from Flink. */
    @Test
    void theConfigurationReachesFlinkThroughItsOwnOptions() throws Exception {
        Configuration conf = conf(
                "--execution.checkpointing.interval", "45 s",
                "--execution.checkpointing.timeout", "2 min",
                "--state.backend.type", "rocksdb",
                "--lineflow.rocksdb.max-manifest-size", "32 kb");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        LineflowJob.configure(env, conf);
        CheckpointConfig cp = env.getCheckpointConfig();
        assertThat(cp.getCheckpointInterval()).isEqualTo(45_000);
        assertThat(cp.getCheckpointTimeout()).isEqualTo(120_000);
        assertThat(cp.getCheckpointingConsistencyMode()).isEqualTo(CheckpointingMode.EXACTLY_ONCE);
        assertThat(cp.getMinPauseBetweenCheckpoints()).isEqualTo(500);
        assertThat(cp.getTolerableCheckpointFailureNumber()).isEqualTo(2);
        assertThat(cp.getMaxConcurrentCheckpoints()).isEqualTo(1);
        assertThat(cp.getExternalizedCheckpointRetention())
                .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        assertThat(env.getConfig().isObjectReuseEnabled()).isTrue();
        assertThat(env.getConfig().hasAutoGeneratedUIDsEnabled()).isFalse();
        LineflowJob.attach(env, conf, LineflowJob.kafkaSource(conf).build());
        // The JobMaster builds the state backend and checkpoint storage from the job's
        // configuration with these two loaders; nothing is set on the environment by hand.
        Configuration shipped = env.getStreamGraph().getJobGraph().getJobConfiguration();
        ClassLoader cl = getClass().getClassLoader();
        Logger log = LoggerFactory.getLogger(JobGraphTest.class);
        StateBackend backend =
                StateBackendLoader.fromApplicationOrConfigOrDefault(null, shipped, new Configuration(), cl, log);
        RocksDbBackend rocksDb = RocksDbBackend.of(backend);
        assertThat(rocksDb.incremental()).isTrue();
        // Loaded by name from the job's configuration and configured with it, as a TaskManager does.
        assertThat(rocksDb.optionsFactory())
                .isInstanceOfSatisfying(
                        BoundedRocksDBManifest.class,
                        f -> assertThat(f.maxManifestBytes()).isEqualTo(32 * 1024));
        CheckpointStorage storage = CheckpointStorageLoader.load(null, backend, shipped, new Configuration(), cl, log);
        assertThat(storage).isInstanceOf(FileSystemCheckpointStorage.class);
        assertThat(((FileSystemCheckpointStorage) storage).getCheckpointPath())
                .hasToString("file:/tmp/lineflow-job-graph-test");
    }

    @Test
    void checkpointingOffMeansOffWhateverTheClusterSays() {
        // The operator gives a last-state deployment without an interval one of 5 min; the drill's
        // no-checkpoints control passed by chance because the job kept checkpointing that way.
        Configuration cluster = new Configuration();
        cluster.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMinutes(5));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(cluster);
        assertThat(env.getCheckpointConfig().isCheckpointingEnabled()).isTrue();
        Configuration conf = JobConfig.load(
                new String[] {
                    "--lineflow.kafka.bootstrap-servers", "127.0.0.1:9",
                    "--lineflow.jdbc.url", "jdbc:postgresql://127.0.0.1:9/lineflow",
                    "--lineflow.checkpointing.enabled", "false"
                },
                Map.of(),
                cluster);
        LineflowJob.configure(env, conf);
        assertThat(env.getCheckpointConfig().isCheckpointingEnabled()).isFalse();
    }

    @Test
    void anOperatorAddedWithoutAUidFailsTheGraph() {
        StreamExecutionEnvironment env = jobEnvironment();
        env.fromData(1, 2, 3)
                .uid("numbers")
                .map(i -> i + 1)
                .name("no uid")
                .print()
                .uid("print");
        assertThatThrownBy(env::getStreamGraph)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("uid");
    }
}
