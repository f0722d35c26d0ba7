package io.lineflow.job.schema;

import io.lineflow.job.config.JobConfig;

import org.apache.flink.configuration.Configuration;

/**
 * Applies the schema migrations, then exits: {@code make migrate} locally and the schema-migration
 * Job on Kubernetes. Takes the job's configuration sources ({@code --config}, env, arguments).
 */
public final class MigrateSchema {
    private MigrateSchema() {}

    public static void main(String[] args) {
        Configuration conf = JobConfig.merge(args, System.getenv(), new Configuration());
        JobConfig.validateForDatabase(conf);
        System.out.println("lineflow schema is at version " + Schema.migrate(conf));
    }
}
