package io.lineflow.incident.beam;

import static java.nio.charset.StandardCharsets.UTF_8;

import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.jdbc.JdbcIO;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.options.PipelineOptionsValidator;
import org.apache.beam.sdk.options.Validation;
import org.apache.beam.sdk.transforms.Values;
import org.apache.beam.sdk.values.PCollection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.Map;

/**
 * The pipeline of the incident behind lineflow's duplicate detector, in its shape: Beam's {@code
 * KafkaIO.read()} with offsets committed in finalize, without metadata, on Beam's Flink runner,
 * and every record passed on once: to PostgreSQL with a plain INSERT, as the incident's pipeline
 * did (the e2e drill's scenario, which counts the rows), or to an output topic (the reconciler's
 * test, which counts what the pipeline emitted without asking Flink). On this runner the read is a Flink source whose split
 * enumerator, when it is restored (a JobManager failover, a start from a savepoint), hands every
 * split out again while the readers restore theirs: every record is then read twice.
 *
 * <p>Run with Beam's options, e.g. {@code --flinkMaster=[local] --flinkConfDir=DIR
 * --checkpointingInterval=2000 --parallelism=2 --bootstrapServers=… --inputTopic=… --outputTopic=…}.
 */
public final class KafkaIoPipeline {

    /** The pipeline's own options beside Beam's Flink runner options. */
    public interface Options extends FlinkPipelineOptions {
        @Description("Kafka bootstrap servers")
        @Validation.Required
        String getBootstrapServers();

        void setBootstrapServers(String value);

        @Description("Topic the pipeline reads")
        @Validation.Required
        String getInputTopic();

        void setInputTopic(String value);

        @Description("Topic each record read is written to, once (or --jdbcUrl)")
        String getOutputTopic();

        void setOutputTopic(String value);

        @Description("PostgreSQL each record read is inserted into, once, as the incident's"
                + " pipeline did: a plain INSERT into incident_beam_records (record) (or --outputTopic)."
                + " User and password come from the environment, INCIDENT_JDBC_USER and"
                + " INCIDENT_JDBC_PASSWORD, never from arguments")
        String getJdbcUrl();

        void setJdbcUrl(String value);

        @Description("Consumer group whose offsets the read commits when a checkpoint finalizes")
        @Default.String("incident-beam")
        String getGroupId();

        void setGroupId(String value);
    }

    private KafkaIoPipeline() {}

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " is not set; the JDBC output takes its credentials from it");
        }
        return value;
    }

    /** The table the JDBC output inserts into; the drill creates it and counts it. */
    public static final String TABLE = "incident_beam_records";

    public static void main(String[] args) {
        PipelineOptionsFactory.register(Options.class);
        Options options = PipelineOptionsFactory.fromArgs(args).as(Options.class);
        options.setRunner(FlinkRunner.class);
        options.setStreaming(true);
        PipelineOptionsValidator.validate(Options.class, options);
        boolean toTopic = options.getOutputTopic() != null;
        if (toTopic == (options.getJdbcUrl() != null)) {
            throw new IllegalArgumentException("give exactly one output: --outputTopic=" + options.getOutputTopic()
                    + ", --jdbcUrl=" + options.getJdbcUrl());
        }
        Pipeline pipeline = Pipeline.create(options);
        PCollection<byte[]> read = pipeline.apply(
                        "ReadFromKafka",
                        KafkaIO.<byte[], byte[]>read()
                                .withBootstrapServers(options.getBootstrapServers())
                                .withTopic(options.getInputTopic())
                                .withKeyDeserializer(ByteArrayDeserializer.class)
                                .withValueDeserializer(ByteArrayDeserializer.class)
                                .withConsumerConfigUpdates(Map.of(
                                        ConsumerConfig.GROUP_ID_CONFIG,
                                        options.getGroupId(),
                                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                        "earliest"))
                                .commitOffsetsInFinalize()
                                .withoutMetadata())
                .apply("Values", Values.create());
        if (toTopic) {
            read.apply(
                    "WriteToKafka",
                    KafkaIO.<Void, byte[]>write()
                            .withBootstrapServers(options.getBootstrapServers())
                            .withTopic(options.getOutputTopic())
                            .withValueSerializer(ByteArraySerializer.class)
                            .values());
        } else {
            read.apply(
                    "WriteToPostgres",
                    JdbcIO.<byte[]>write()
                            .withDataSourceConfiguration(
                                    JdbcIO.DataSourceConfiguration.create("org.postgresql.Driver", options.getJdbcUrl())
                                            .withUsername(env("INCIDENT_JDBC_USER"))
                                            .withPassword(env("INCIDENT_JDBC_PASSWORD")))
                            .withStatement("INSERT INTO " + TABLE + " (record) VALUES (?)")
                            .withPreparedStatementSetter(
                                    (record, statement) -> statement.setString(1, new String(record, UTF_8))));
        }
        PipelineResult result = pipeline.run();
        // Detached (--attachedMode=false), as the operator runs an application: Beam submits the
        // job and returns; waiting on it is for an attached client.
        if (options.getAttachedMode()) {
            result.waitUntilFinish();
        }
    }
}
