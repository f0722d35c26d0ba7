package io.lineflow.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/** A real PostgreSQL server (embedded binaries) on loopback, its data under {@code dir}. */
public final class EmbeddedPostgresServer implements AutoCloseable {
    private final EmbeddedPostgres pg;

    private EmbeddedPostgresServer(EmbeddedPostgres pg) {
        this.pg = pg;
    }

    public static EmbeddedPostgresServer start(Path dir) {
        try {
            return new EmbeddedPostgresServer(
                    EmbeddedPostgres.builder()
                            .setOverrideWorkingDirectory(dir.resolve("work").toFile())
                            .setDataDirectory(dir.resolve("data"))
                            .setCleanDataDirectory(true)
                            .start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }

    public String jdbcUrl() {
        return pg.getJdbcUrl("postgres", "postgres");
    }

    public String user() {
        return "postgres";
    }

    public Connection connect() throws SQLException {
        return pg.getPostgresDatabase().getConnection();
    }

    @Override
    public void close() throws IOException {
        pg.close();
    }
}
