package io.lineflow.job;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.event.DeviceEventDeserializer;
import io.lineflow.job.schema.Schema;
import io.lineflow.job.sink.PostgresSinks;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point: Kafka → {@link LineflowPipeline} → PostgreSQL, configured by {@link JobConfig}. */
public final class LineflowJob {
    private static final Logger LOG = LoggerFactory.getLogger(LineflowJob.class);

    private LineflowJob() {}

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration conf = JobConfig.load(args, System.getenv(), env.getConfiguration());
        LOG.info("Starting lineflow with {}", LineflowSettings.describe(conf));
        if (conf.get(LineflowOptions.SCHEMA_CHECK)) {
            Schema.verify(conf);
            // Where main runs in a JobManager (a job submitted through the REST API), the driver the
            // check loaded would keep this submission's classloader there for good, one per upgrade.
            ClassLoaderRelease.deregisterOwnDrivers();
        }
        configure(env, conf);
        attach(env, conf, kafkaSource(conf).build());
        env.execute(conf.get(LineflowOptions.JOB_NAME));
    }

    /**
     * Applies the (validated) configuration to {@code env} through Flink's own options:
     * checkpointing, checkpoint storage and the state backend as the configuration says, plus the
     * two settings the topology relies on. No operator may go without a uid of its own (building
     * the graph fails otherwise, so an operator added without one cannot reach a savepoint); and
     * object reuse: no function keeps a reference to its input or changes a record after emitting
     * it, so chained operators may hand records on without a defensive copy (about 6% of the job's
     * CPU in the profile); the sinks copy what they buffer themselves.
     */
    public static void configure(StreamExecutionEnvironment env, ReadableConfig conf) {
        Configuration settings = Configuration.fromMap(conf.toMap());
        settings.set(PipelineOptions.AUTO_GENERATE_UIDS, false);
        settings.set(PipelineOptions.OBJECT_REUSE, true);
        env.configure(settings);
        if (!conf.get(LineflowOptions.CHECKPOINTING_ENABLED)) {
            LOG.warn(
                    "Checkpointing is OFF ({}=false): a restart loses or doubles counts.",
                    LineflowOptions.CHECKPOINTING_ENABLED.key());
            // Off means off, whatever the cluster's configuration says: the Flink Kubernetes
            // Operator gives a last-state deployment without an interval one of 5 min.
            env.getCheckpointConfig().disableCheckpointing();
        }
    }

    /** The Kafka source, ready to build; tests may bound it first. */
    public static KafkaSourceBuilder<ParsedRecord> kafkaSource(ReadableConfig conf) {
        // A switch expression, which javac holds to every constant: a new StartingOffsets does not
        // compile until it is given its initializer here.
        OffsetsInitializer start = switch (conf.get(LineflowOptions.KAFKA_STARTING_OFFSETS)) {
            case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
            case EARLIEST -> OffsetsInitializer.earliest();
            case LATEST -> OffsetsInitializer.latest();
        };
        DeviceEventJson json = LineflowSettings.rules(conf).parser();
        return KafkaSource.<ParsedRecord>builder()
                .setProperties(LineflowSettings.withPrefix(conf, LineflowOptions.KAFKA_PROPERTIES_PREFIX))
                .setBootstrapServers(conf.get(LineflowOptions.KAFKA_BOOTSTRAP_SERVERS))
                .setTopics(conf.get(LineflowOptions.KAFKA_TOPIC))
                .setGroupId(conf.get(LineflowOptions.KAFKA_GROUP_ID))
                .setStartingOffsets(start)
                .setDeserializer(new DeviceEventDeserializer(json));
    }

    /** Wires source, topology and both sinks into {@code env}, configured by {@link #configure}. */
    public static void attach(StreamExecutionEnvironment env, ReadableConfig conf, KafkaSource<ParsedRecord> source) {
        LineflowPipeline.Outputs out = LineflowPipeline.build(
                env.fromSource(source, LineflowPipeline.watermarks(conf), "kafka-source")
                        .uid(LineflowPipeline.SOURCE_UID),
                conf);
        out.windows
                .sinkTo(PostgresSinks.windowStats(conf))
                .uid(LineflowPipeline.STATS_SINK_UID)
                .name("device_window_stats upsert");
        out.rejected
                .sinkTo(PostgresSinks.rejectedEvents(conf))
                .uid(LineflowPipeline.REJECTED_SINK_UID)
                .name("rejected_events insert");
    }
}
