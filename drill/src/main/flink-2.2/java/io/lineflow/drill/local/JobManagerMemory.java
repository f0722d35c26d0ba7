package io.lineflow.drill.local;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;

/** A JobManager's memory as Flink 2.x's start script derives it (2.x has no legacy heap option). */
final class JobManagerMemory {
    private JobManagerMemory() {}

    static JobManagerProcessSpec spec(Configuration conf) {
        return JobManagerProcessUtils.processSpecFromConfig(conf);
    }
}
