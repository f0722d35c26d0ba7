package io.lineflow.drill.local;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;

/** A JobManager's memory as Flink 1.x's start script derives it (a legacy heap size read as the JVM heap). */
final class JobManagerMemory {
    private JobManagerMemory() {}

    static JobManagerProcessSpec spec(Configuration conf) {
        return JobManagerProcessUtils.processSpecFromConfigWithNewOptionToInterpretLegacyHeap(
                conf, JobManagerOptions.JVM_HEAP_MEMORY);
    }
}
