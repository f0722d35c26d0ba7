package io.lineflow.drill.soak;

/**
 * The job classloaders a JobManager holds for a job it runs. Flink 1.20: one, the job's own. The
 * jar run that made the job (its main, run in the JobManager through the REST API) hands the
 * JobMaster a JobGraph, whose user objects are serialized, and its classloader is released.
 */
final class JobManagerLoaders {
    static final int PER_JOB = 1;

    private JobManagerLoaders() {}
}
