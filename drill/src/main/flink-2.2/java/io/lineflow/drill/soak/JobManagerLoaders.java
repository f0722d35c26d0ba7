package io.lineflow.drill.soak;

/**
 * The job classloaders a JobManager holds for a job it runs. Flink 2.2: two, the job's own and
 * that of the jar run that made the job (its main, run in the JobManager through the REST API).
 * The jar run hands the JobMaster the StreamGraph itself, which the JobMaster keeps while the job
 * runs; its lineage graph holds the Kafka source's lineage objects, of classes the main's
 * classloader loaded (found in a heap dump of the soak's JobManager: no other path held it).
 */
final class JobManagerLoaders {
    static final int PER_JOB = 2;

    private JobManagerLoaders() {}
}
