package io.lineflow.drill.local;

import io.lineflow.drill.core.TableCheck;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;
import io.lineflow.testing.KafkaBrokerMain;
import io.lineflow.testing.ManagedProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;

/**
 * The local cluster's services, each its own process on loopback with a port of its own for its
 * whole life (a restart comes back where it was): ZooKeeper (for ZooKeeper HA), a Kafka broker and
 * PostgreSQL; their outages and kills.
 */
final class LocalServices implements AutoCloseable {
    private final Path dir;
    private final String fullClasspath;
    private final String flinkClasspath;
    final int zkPort = EmbeddedKafka.freePort();
    final int kafkaPort = EmbeddedKafka.freePort();
    final int pgPort = EmbeddedKafka.freePort();
    private ManagedProcess zookeeper;
    private ManagedProcess kafka;
    private EmbeddedPostgresServer postgres;

    /**
     * @param fullClasspath the drill's classpath (the broker runs from the test kit)
     * @param flinkClasspath a Flink distribution's (ZooKeeper runs from Flink's shaded one)
     */
    LocalServices(Path dir, String fullClasspath, String flinkClasspath) {
        this.dir = dir;
        this.fullClasspath = fullClasspath;
        this.flinkClasspath = flinkClasspath;
    }

    String bootstrapServers() {
        return "127.0.0.1:" + kafkaPort;
    }

    String zooKeeperQuorum() {
        return "127.0.0.1:" + zkPort;
    }

    String jdbcUrl() {
        return postgres.jdbcUrl();
    }

    /** The server of the moment: an outage replaces it. */
    TableCheck.Database database() {
        return () -> postgres.connect();
    }

    /** ZooKeeper on a data folder of HA generation {@code generation}: a new one forgets the old's. */
    void startZooKeeper(int generation) {
        Path data = mkdirs(dir.resolve("zookeeper-" + generation));
        zookeeper = ManagedProcess.java(
                "zookeeper",
                List.of("-Xmx256m", "-Dzookeeper.admin.enableServer=false"),
                flinkClasspath,
                "org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServerMain",
                List.of(String.valueOf(zkPort), data.toString()),
                dir.resolve("zookeeper.log"));
    }

    /** kill -9 of ZooKeeper, if it runs, and a new one of {@code generation}. */
    void replaceZooKeeper(int generation) {
        if (zookeeper != null) {
            zookeeper.kill9();
            startZooKeeper(generation);
        }
    }

    void startKafka() {
        kafka = ManagedProcess.java(
                "kafka",
                List.of("-Xmx512m", "-Djava.io.tmpdir=" + mkdirs(dir.resolve("tmp"))),
                fullClasspath,
                KafkaBrokerMain.class.getName(),
                List.of(dir.resolve("kafka").toString(), String.valueOf(kafkaPort)),
                dir.resolve("kafka.log"));
        kafka.awaitOutput(KafkaBrokerMain.READY, Duration.ofSeconds(90));
    }

    /** A broker restart: SIGTERM, then a new broker on the same data and port. */
    void restartKafka() {
        kafka.stop();
        startKafka();
    }

    /** kill -9 of the broker; returns it, for the log. */
    String killKafka() {
        kafka.kill9();
        return kafka.toString();
    }

    /**
     * Starts PostgreSQL on the cluster's port and data directory. The directory is never cleaned
     * by the server itself (a server started with cleaning deletes its data when it stops, which
     * would turn an outage into data loss); each scenario starts in an empty folder instead.
     */
    void startPostgres() {
        // Durable commits, as a production server has them: pg-kill crashes it.
        postgres = EmbeddedPostgresServer.start(dir.resolve("postgres"), pgPort, false, true);
    }

    void stopPostgres() throws IOException {
        postgres.close();
    }

    /** kill -9 of PostgreSQL, mid-batch if one of the sink's upserts runs within 10 s. */
    String killPostgres() throws Exception {
        // Watch (for up to 10 s, over one connection, without pause) for one of the sink's
        // upserts to be running, and kill the server the moment one is.
        boolean inFlight = false;
        try (Connection c = postgres.connect();
                PreparedStatement st = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE state ="
                        + " 'active' AND pid <> pg_backend_pid() AND query LIKE 'INSERT INTO device_window_stats%'")) {
            long deadline = System.currentTimeMillis() + 10_000;
            while (!inFlight && System.currentTimeMillis() < deadline) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    inFlight = rs.getInt(1) > 0;
                }
            }
        }
        String killed = postgres.kill9();
        return "PostgreSQL (" + killed + ")"
                + (inFlight ? " with a sink batch in flight" : " (no sink batch seen in flight within 10 s)");
    }

    @Override
    public void close() {
        if (kafka != null) {
            kafka.kill9();
        }
        if (zookeeper != null) {
            zookeeper.kill9();
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException | RuntimeException e) {
                // already stopped (a db-outage scenario that failed mid-way)
            }
        }
    }

    static Path mkdirs(Path p) {
        try {
            return Files.createDirectories(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
