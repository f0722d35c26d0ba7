package io.lineflow.job;

import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.settings.LineflowOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** The job started on a test's MiniCluster as its main starts it, at parallelism 2. */
final class TestJobs {
    private TestJobs() {}

    /** Reads from {@code source}; restores {@code restoreFrom} (a savepoint or checkpoint) if not null. */
    static JobClient start(Configuration conf, KafkaSource<ParsedRecord> source, String restoreFrom) throws Exception {
        Configuration envConf = new Configuration();
        if (restoreFrom != null) {
            envConf.set(StateRecoveryOptions.SAVEPOINT_PATH, restoreFrom);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(envConf);
        env.setParallelism(2);
        LineflowJob.configure(env, conf);
        LineflowJob.attach(env, conf, source);
        return env.executeAsync(conf.get(LineflowOptions.JOB_NAME));
    }

    /** Reads the configured topic up to {@code stopAt}, then finishes. */
    static JobClient startBounded(Configuration conf, OffsetsInitializer stopAt) throws Exception {
        return start(conf, LineflowJob.kafkaSource(conf).setBounded(stopAt).build(), null);
    }
}
