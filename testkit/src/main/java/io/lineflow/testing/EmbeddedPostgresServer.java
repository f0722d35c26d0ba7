package io.lineflow.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.io.FileUtils;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** A real PostgreSQL server (embedded binaries) on loopback, its data under {@code dir}. */
public final class EmbeddedPostgresServer implements AutoCloseable {
    private final EmbeddedPostgres pg;
    /** The server's data folder: {@code data} under the folder it was started in. */
    private final Path dataDirectory;

    private EmbeddedPostgresServer(EmbeddedPostgres pg, Path dataDirectory) {
        this.pg = pg;
        this.dataDirectory = dataDirectory;
    }

    public static EmbeddedPostgresServer start(Path dir) {
        return start(dir, 0, true);
    }

    /**
     * Starts PostgreSQL on {@code port} (0: any free port); with {@code clean} false it reuses the
     * data an earlier server left in {@code dir}, which is how a restart after an outage looks.
     */
    public static EmbeddedPostgresServer start(Path dir, int port, boolean clean) {
        return start(dir, port, clean, false);
    }

    /**
     * As {@link #start(Path, int, boolean)}; with {@code durable} a commit is acknowledged only once
     * it is on disk ({@code synchronous_commit = on}, PostgreSQL's own default, which the embedded
     * library turns off for speed): without it a server killed with {@code kill -9} loses the
     * commits of its last fraction of a second after acknowledging them (the soak's {@code
     * pg-kill} found a window's rows gone that way).
     */
    public static EmbeddedPostgresServer start(Path dir, int port, boolean clean, boolean durable) {
        try {
            if (clean) {
                // A run killed before close() leaves its data behind, and initdb refuses a
                // directory that is not empty: a clean start must not depend on the last stop.
                FileUtils.deleteDirectory(dir.resolve("data").toFile());
            }
            EmbeddedPostgres.Builder builder = builder(dir, port, clean);
            if (durable) {
                builder.setServerConfig("synchronous_commit", "on");
            }
            return new EmbeddedPostgresServer(builder.start(), dir.resolve("data"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }

    /**
     * Starts PostgreSQL listening on loopback and on {@code host} as well (e.g. the end-to-end
     * cluster's bridge, so that pods reach it). Only loopback may log in without a password, as the
     * superuser; from {@code clientCidr} only {@code user} may log in, to database {@code database},
     * with a SCRAM password (see {@link #createLogin}). The data in {@code dir} is kept when the
     * server stops, so a server started again on it is the same database after an outage; an empty
     * {@code dir} gives a fresh one.
     */
    public static EmbeddedPostgresServer startReachableFrom(
            Path dir, String host, int port, String clientCidr, String database, String user) {
        try {
            Files.createDirectories(dir);
            Path hba = dir.resolve("pg_hba.conf");
            Files.writeString(
                    hba,
                    String.join(
                            "\n",
                            "# written by EmbeddedPostgresServer.startReachableFrom",
                            "local all postgres trust",
                            "host all postgres 127.0.0.1/32 trust",
                            "host " + database + " " + user + " " + clientCidr + " scram-sha-256",
                            ""));
            return new EmbeddedPostgresServer(
                    builder(dir, port, false)
                            .setServerConfig("listen_addresses", "127.0.0.1," + host)
                            .setServerConfig("hba_file", hba.toAbsolutePath().toString())
                            .setServerConfig("password_encryption", "scram-sha-256")
                            .start(),
                    dir.resolve("data"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL on " + host + ":" + port, e);
        }
    }

    /** Creates (or resets) a login role with {@code password} that owns a database of the same name. */
    public void createLogin(String user, String password) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            // Role and database names cannot be bound parameters; both are checked identifiers.
            if (!user.matches("[a-z_][a-z0-9_]{0,62}")) {
                throw new IllegalArgumentException("not a plain role name: " + user);
            }
            try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
                q.setString(1, user);
                if (!q.executeQuery().next()) {
                    s.execute("CREATE ROLE " + user + " LOGIN");
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT set_config('lineflow.pw', ?, false)")) {
                q.setString(1, password);
                q.execute();
            }
            // The password travels as a bound parameter and is quoted by the server, never by us.
            s.execute("DO $$ BEGIN EXECUTE format('ALTER ROLE " + user
                    + " PASSWORD %L', current_setting('lineflow.pw')); END $$");
            s.execute("SELECT set_config('lineflow.pw', '', false)");
            try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
                q.setString(1, user);
                if (!q.executeQuery().next()) {
                    s.execute("CREATE DATABASE " + user + " OWNER " + user);
                }
            }
        }
    }

    /** A JDBC URL for {@code database} on loopback. */
    public String jdbcUrl(String database) {
        return pg.getJdbcUrl("postgres", database);
    }

    private static EmbeddedPostgres.Builder builder(Path dir, int port, boolean clean) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setOverrideWorkingDirectory(dir.resolve("work").toFile())
                .setDataDirectory(dir.resolve("data"))
                .setCleanDataDirectory(clean);
        if (port > 0) {
            builder.setPort(port);
        }
        return builder;
    }

    public String jdbcUrl() {
        return pg.getJdbcUrl("postgres", "postgres");
    }

    public String user() {
        return "postgres";
    }

    /** Empties the job's two tables, for the next test. */
    public void truncateTables() throws SQLException {
        try (Connection c = connect();
                java.sql.Statement s = c.createStatement()) {
            s.execute("TRUNCATE device_window_stats, rejected_events");
        }
    }

    /**
     * Kills the server as a crash would: SIGKILL to the postmaster and to every process it started
     * (its backends, writer, WAL writer…), no shutdown, no checkpoint. This server is closed with it
     * (the data folder's lock released); the data of a server started with {@code clean} false
     * stays, and a server started on it later runs crash recovery. Returns the postmaster's pid and
     * how many children died with it.
     */
    public String kill9() {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        long pid;
        try {
            pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the postmaster's pid from " + pidFile, e);
        }
        ProcessHandle postmaster = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException("postmaster " + pid + " is not running"));
        List<ProcessHandle> children = postmaster.descendants().toList();
        postmaster.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        postmaster.onExit().join();
        children.forEach(c -> c.onExit().join());
        releaseAfterKill();
        return "postmaster pid " + pid + " and " + children.size() + " processes of it";
    }

    /**
     * The embedded library's close() runs {@code pg_ctl stop} before it releases the lock, and logs
     * its failure at ERROR with a stack trace; after a kill there is no server to stop, so that
     * failure is the expected outcome, and the library's log is muted for this one call.
     */
    private void releaseAfterKill() {
        String library = EmbeddedPostgres.class.getName();
        Level level = LogManager.getLogger(library).getLevel();
        Configurator.setLevel(library, Level.OFF);
        try {
            pg.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release the data folder of a killed server", e);
        } finally {
            Configurator.setLevel(library, level);
        }
    }

    public Connection connect() throws SQLException {
        return pg.getPostgresDatabase().getConnection();
    }

    @Override
    public void close() throws IOException {
        pg.close();
    }
}
