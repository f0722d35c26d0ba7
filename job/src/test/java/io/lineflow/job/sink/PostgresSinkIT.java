package io.lineflow.job.sink;

import static io.lineflow.testing.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.job.schema.Schema;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.rules.table.WindowTable;
import io.lineflow.testing.EmbeddedPostgresServer;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL sink on a real database: a row the database will never take (a data error) is
 * kept in rejected_events and the job goes on; a database it cannot reach still fails the job.
 */
class PostgresSinkIT {
    private static final Path WORK = Path.of("target", "it", "postgres-sink");

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(1)
            .setConfiguration(noRestarts())
            .build());

    private static EmbeddedPostgresServer postgres;

    private static Configuration noRestarts() {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return c;
    }

    @BeforeAll
    static void startPostgres() {
        postgres = EmbeddedPostgresServer.start(WORK.resolve("postgres"));
        Schema.migrate(config(postgres.jdbcUrl()));
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        postgres.close();
    }

    @BeforeEach
    void emptyTables() throws Exception {
        postgres.truncateTables();
    }

    private static Configuration config(String jdbcUrl) {
        return JobConfig.merge(
                new String[] {
                    "--lineflow.jdbc.url",
                    jdbcUrl,
                    "--lineflow.jdbc.user",
                    postgres.user(),
                    "--lineflow.sink.max-retries",
                    "1",
                    "--lineflow.sink.batch-size",
                    "3",
                },
                Map.of(),
                new Configuration());
    }

    private static DeviceWindowStats row(String device, String line, long start) {
        DeviceWindowStats r = new DeviceWindowStats();
        r.deviceId = device;
        r.lineId = line;
        r.windowStart = start;
        r.windowEnd = start + Duration.ofMinutes(5).toMillis();
        r.piecesProduced = 7;
        r.eventsSeen = 7;
        r.firstEventTs = start;
        r.lastEventTs = start + 1;
        return r;
    }

    private static void run(Configuration conf, List<DeviceWindowStats> rows) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.fromData(DeviceWindowStats.class, rows.toArray(new DeviceWindowStats[0]))
                .sinkTo(PostgresSinks.windowStats(conf));
        env.execute("postgres-sink-it");
    }

    private static List<String> refused() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = postgres.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT reason, detail FROM rejected_events ORDER BY detail")) {
            while (rs.next()) {
                out.add(rs.getString(1) + " " + rs.getString(2));
            }
        }
        return out;
    }

    @Test
    void keepsARowTheDatabaseRefusesAndWritesTheOthers() throws Exception {
        List<DeviceWindowStats> rows = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            rows.add(row("d" + i, "L1", t(0)));
        }
        rows.set(2, row("d2", "L\u00001", t(0))); // PostgreSQL refuses U+0000 in text
        rows.set(5, row("d5", "L1", Long.MAX_VALUE / 4)); // far outside timestamptz
        // Too big for a btree index entry (random text does not compress): SQLState 54000.
        rows.set(
                6,
                row(
                        "d6-"
                                + new java.util.Random(6)
                                        .ints(3000, 0x4E00, 0x9FFF)
                                        .collect(
                                                StringBuilder::new,
                                                StringBuilder::appendCodePoint,
                                                StringBuilder::append),
                        "L1",
                        t(0)));
        run(config(postgres.jdbcUrl()), rows);

        Map<String, Row> table;
        try (Connection c = postgres.connect()) {
            table = WindowTable.read(c);
        }
        assertThat(table).hasSize(4).doesNotContainKeys(WindowTable.key("d2", t(0)));
        assertThat(refused())
                .hasSize(3)
                .allSatisfy(r -> assertThat(r).startsWith("REFUSED_BY_DATABASE device_window_stats row"))
                .anySatisfy(r -> assertThat(r).contains("d2").contains("SQLState 22"))
                .anySatisfy(r -> assertThat(r).contains("d5"))
                .anySatisfy(r -> assertThat(r).contains("d6-").contains("SQLState 54000"));
    }

    @Test
    void aDatabaseItCannotReachStillFailsTheJobAfterItsRetries() {
        // Nothing listens on port 1: a transient failure, which must not be mistaken for bad data.
        Configuration conf = config("jdbc:postgresql://127.0.0.1:1/lineflow?connectTimeout=2");
        assertThatThrownBy(() -> run(conf, List.of(row("d1", "L1", t(0)))))
                .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, java.net.ConnectException.class))
                        .isPresent());
    }
}
