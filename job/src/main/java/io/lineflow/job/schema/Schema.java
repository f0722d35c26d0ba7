package io.lineflow.job.schema;

import io.lineflow.settings.LineflowOptions;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.ReadableConfig;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;

import java.util.HashMap;
import java.util.Map;

/** The database schema: versioned Flyway migrations under {@code db/migration}. */
public final class Schema {
    private Schema() {}

    /** Applies pending migrations; returns the version the schema is at afterwards. */
    public static String migrate(ReadableConfig conf) {
        Flyway flyway = flyway(conf);
        flyway.migrate();
        return flyway.info().current().getVersion().getVersion();
    }

    /**
     * Fails with a message saying what to do unless every migration this build ships is applied.
     *
     * @throws SchemaMismatchException if the schema is missing or behind
     */
    public static void verify(ReadableConfig conf) {
        MigrationInfoService info = flyway(conf).info();
        MigrationInfo[] all = info.all();
        String expected =
                all.length == 0 ? "none" : all[all.length - 1].getVersion().getVersion();
        MigrationInfo current = info.current();
        if (current == null || info.pending().length > 0) {
            throw new SchemaMismatchException("Database schema at "
                    + conf.get(LineflowOptions.JDBC_URL)
                    + " is at version "
                    + (current == null ? "none (not initialised)" : current.getVersion())
                    + " but this job needs version "
                    + expected
                    + ". Apply the migrations first: `make migrate` locally, or on"
                    + " Kubernetes the lineflow-migrate Job that `make deploy` runs"
                    + " (manifests/db/migrate-job.yaml).");
        }
    }

    private static Flyway flyway(ReadableConfig conf) {
        Map<String, String> props = new HashMap<>();
        LineflowSettings.withPrefix(conf, LineflowOptions.JDBC_PROPERTIES_PREFIX)
                .forEach((k, v) -> props.put((String) k, (String) v));
        return Flyway.configure(Schema.class.getClassLoader())
                .dataSource(
                        conf.get(LineflowOptions.JDBC_URL),
                        conf.getOptional(LineflowOptions.JDBC_USER).orElse(null),
                        conf.getOptional(LineflowOptions.JDBC_PASSWORD).orElse(null))
                .jdbcProperties(props)
                .locations("classpath:db/migration")
                .load();
    }

    /** The schema is not at the version the job was built for. */
    public static class SchemaMismatchException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        SchemaMismatchException(String message) {
            super(message);
        }
    }
}
