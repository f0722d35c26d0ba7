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
        return start(dir, 0, true);
    }

    /**
     * Starts PostgreSQL on {@code port} (0: any free port); with {@code clean} false it reuses the
     * data an earlier server left in {@code dir}, which is how a restart after an outage looks.
     */
    public static EmbeddedPostgresServer start(Path dir, int port, boolean clean) {
        try {
            EmbeddedPostgres.Builder builder =
                    EmbeddedPostgres.builder()
                            .setOverrideWorkingDirectory(dir.resolve("work").toFile())
                            .setDataDirectory(dir.resolve("data"))
                            .setCleanDataDirectory(clean);
            if (port > 0) {
                builder.setPort(port);
            }
            return new EmbeddedPostgresServer(builder.start());
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
