package io.lineflow.drill.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The drills' one scenario run, with real Kafka and PostgreSQL and a backend whose job writes
 * nothing (so every expected row is missing, which is what the checks below count on): when the
 * strike comes, what the run does around it, and what a failed strike leaves.
 */
class ScenarioRunTest {
    private static final int PARTITIONS = 2;

    @TempDir
    static Path dir;

    private static EmbeddedKafka kafka;
    private static EmbeddedPostgresServer postgres;
    private static int topics;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        postgres = EmbeddedPostgresServer.start(dir.resolve("pg"));
        Schema.migrate(JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", postgres.jdbcUrl(), "--lineflow.jdbc.user", postgres.user()},
                Map.of(),
                new Configuration()));
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
        kafka.close();
    }

    /** A job that never stops running (since the fault) and writes no row. */
    private static final class SilentBackend implements Backend {
        volatile Long runningSince;

        @Override
        public RunState job() {
            return new RunState(true, runningSince);
        }

        @Override
        public Long strike(Fault fault) {
            throw new UnsupportedOperationException();
        }

        @Override
        public TableCheck.Database database() {
            return postgres::connect;
        }
    }

    private static DeterministicInput input(int windows, long start) {
        return DeterministicInput.generate(2, windows, 3, TableCheck.WINDOW, start, PARTITIONS);
    }

    private static final Timeline.Pace PACE =
            new Timeline.Pace(Duration.ofMillis(20), Duration.ofMillis(300), Duration.ofMillis(300));

    private static String topic() {
        String topic = "scenario-run-" + topics++;
        kafka.createTopic(topic, PARTITIONS);
        return topic;
    }

    private static long records(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> ends = IntStream.range(0, PARTITIONS)
                .boxed()
                .collect(Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()));
        return kafka.admin().listOffsets(ends).all().get().values().stream()
                .mapToLong(o -> o.offset())
                .sum();
    }

    @Test
    void theStrikeComesAtTheInjectionPointWithTheRestHeldAndIsFollowedByTheTimelineAndItsChecks() throws Exception {
        String topic = topic();
        SilentBackend backend = new SilentBackend();
        DeterministicInput input = input(4, TableCheck.T0);
        int injectIndex = input.records.size() / 2;
        List<String> calls = new ArrayList<>();
        ScenarioRun.Strike strike = new ScenarioRun.Strike() {
            @Override
            public void before(long injectedAt) throws Exception {
                calls.add("before: " + records(topic) + " records in Kafka");
            }

            @Override
            public Long strike() throws Exception {
                backend.runningSince = System.currentTimeMillis();
                calls.add("strike: " + records(topic) + " records in Kafka");
                return null;
            }

            @Override
            public void after(ScenarioResult result) throws Exception {
                calls.add("after: recovery " + (result.recoveryMillis != null) + ", " + records(topic) + " or more");
            }
        };
        ScenarioResult result = new ScenarioResult(new Scenario("test", false, true));

        new ScenarioRun(backend, kafka.bootstrapServers(), topic, Duration.ofMillis(500), s -> {})
                .run(
                        "test",
                        new ScenarioRun.Plan(input, 500, injectIndex, true, PACE, strike),
                        new ScenarioRun.Table(),
                        result);

        assertThat(calls.subList(0, 2))
                .as("the producer stops at the injection point until the strike returns")
                .containsExactly(
                        "before: " + injectIndex + " records in Kafka", "strike: " + injectIndex + " records in Kafka");
        assertThat(calls.get(2)).startsWith("after: recovery true");
        assertThat(result.marks).hasSize(1);
        assertThat(result.error).isNull();
        assertThat(records(topic)).isEqualTo(input.records.size());
        assertThat(result.rowsExpected).isPositive();
        assertThat(result.missing).as("the silent job wrote nothing").isEqualTo(result.rowsExpected);
    }

    @Test
    void aStrikeThatFailsIsTheScenariosErrorAndTheTableIsCheckedAllTheSame() throws Exception {
        String topic = topic();
        DeterministicInput input = input(2, TableCheck.T0);
        List<String> after = new ArrayList<>();
        ScenarioRun.Strike failing = new ScenarioRun.Strike() {
            @Override
            public Long strike() {
                throw new IllegalStateException("the pod would not go");
            }

            @Override
            public void after(ScenarioResult result) {
                after.add("called");
            }
        };
        ScenarioResult result = new ScenarioResult(new Scenario("test", false, true));

        new ScenarioRun(new SilentBackend(), kafka.bootstrapServers(), topic, Duration.ofMillis(500), s -> {})
                .run(
                        "tm-kill",
                        new ScenarioRun.Plan(input, 200, 3, true, PACE, failing),
                        new ScenarioRun.Table(),
                        result);

        assertThat(result.error).isEqualTo("tm-kill could not be carried out: the pod would not go");
        assertThat(after).isEmpty();
        assertThat(records(topic)).as("the held input was sent all the same").isEqualTo(input.records.size());
        assertThat(result.rowsExpected).isPositive();
        assertThat(result.missing).isEqualTo(result.rowsExpected);
    }

    @Test
    void scenariosOnOneTableAreJudgedAgainstEverythingSentToIt() throws Exception {
        String topic = topic();
        ScenarioRun run =
                new ScenarioRun(new SilentBackend(), kafka.bootstrapServers(), topic, Duration.ofMillis(500), s -> {});
        ScenarioRun.Table table = new ScenarioRun.Table();
        ScenarioResult first = new ScenarioResult(new Scenario("first", false, false));
        ScenarioResult second = new ScenarioResult(new Scenario("second", false, false));

        DeterministicInput earlier = input(2, TableCheck.T0);
        run.run("first", new ScenarioRun.Plan(earlier, 100, 0, false, PACE, null), table, first);
        DeterministicInput later = input(3, TableCheck.T0 + 10 * TableCheck.WINDOW);
        run.run("second", new ScenarioRun.Plan(later, 100, 0, false, PACE, null), table, second);
        long now = System.currentTimeMillis();
        int alone = new ScenarioRun.Table().add(later, now).windows().size();
        ScenarioRun.Table fresh = new ScenarioRun.Table();
        fresh.add(earlier, now);
        int both = fresh.add(later, now).windows().size();

        assertThat(first.marks).as("nothing struck").isEmpty();
        assertThat(first.rowsExpected).isPositive();
        // The later input's watermark also closes the earlier scenario's last windows.
        assertThat(second.rowsExpected).isGreaterThan(alone).isEqualTo(both);
    }
}
