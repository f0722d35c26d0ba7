package io.lineflow.job.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.job.config.JobConfig;
import io.lineflow.settings.LineflowOptions;
import io.lineflow.testing.EmbeddedPostgresServer;

import org.apache.flink.configuration.Configuration;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

/** The job refuses a database whose schema is not at the version it was built for. */
class SchemaTest {
    private static EmbeddedPostgresServer postgres;

    @BeforeAll
    static void start() {
        postgres = EmbeddedPostgresServer.start(Path.of("target", "it", "schema-test"));
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    private static Configuration db(String database) throws Exception {
        try (Connection c = postgres.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        }
        String url = postgres.jdbcUrl().replace("/postgres?", "/" + database + "?");
        return JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", url, "--lineflow.jdbc.user", postgres.user()},
                Map.of(),
                new Configuration());
    }

    @Test
    void anEmptyDatabaseIsRefusedWithWhatToDo() throws Exception {
        Configuration conf = db("empty");
        assertThatThrownBy(() -> Schema.verify(conf))
                .isInstanceOf(Schema.SchemaMismatchException.class)
                .hasMessageContaining("is at version none (not initialised)")
                .hasMessageContaining("needs version 2")
                .hasMessageContaining("make migrate");
    }

    @Test
    void aSchemaBehindIsRefused_aMigratedOneAccepted() throws Exception {
        Configuration conf = db("behind");
        Flyway.configure()
                .dataSource(conf.get(LineflowOptions.JDBC_URL), postgres.user(), null)
                .locations("classpath:db/migration")
                .target("1")
                .load()
                .migrate();
        assertThatThrownBy(() -> Schema.verify(conf)).hasMessageContaining("is at version 1");

        assertThat(Schema.migrate(conf)).isEqualTo("2");
        assertThatCode(() -> Schema.verify(conf)).doesNotThrowAnyException();
    }
}
