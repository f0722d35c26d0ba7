package io.lineflow.drill.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/** The recovery rule, for a backend that knows since when the job runs and for one that does not. */
class TimelineTest {
    private static final Timeline.Pace FAST =
            new Timeline.Pace(Duration.ofMillis(5), Duration.ofMillis(300), Duration.ofMillis(300));

    /** A backend whose job shows the given states one poll after another, the last one from then on. */
    private static Backend job(List<Backend.RunState> states) {
        Queue<Backend.RunState> next = new ArrayDeque<>(states);
        return new Backend() {
            @Override
            public RunState job() {
                return next.size() > 1 ? next.poll() : next.peek();
            }

            @Override
            public Long strike(Fault fault) {
                throw new UnsupportedOperationException();
            }

            @Override
            public TableCheck.Database database() {
                return () -> {
                    throw new SQLException("no table in this test");
                };
            }
        };
    }

    private static ScenarioResult measure(Backend backend, long injectedAt, Long recoveredAt) {
        ScenarioResult result = new ScenarioResult(new Scenario("s", false, true));
        Timeline.measure(backend, FAST, injectedAt, recoveredAt, result);
        return result;
    }

    @Test
    void aJobSeenDownAndRunningAgainRecovered() {
        Backend.RunState running = new Backend.RunState(true, null);
        long injectedAt = System.currentTimeMillis();
        ScenarioResult r = measure(job(List.of(running, Backend.RunState.DOWN, running)), injectedAt, null);
        assertThat(r.recoveryMillis).isNotNull().isBetween(0L, 300L);
        assertThat(r.outputGapMillis).as("no table, no row").isNull();
    }

    @Test
    void aJobRunningSinceAfterTheFaultRestartedBetweenTwoLooks() {
        // The fault a second ago, the job running since 200 ms after it, seen only now.
        long injectedAt = System.currentTimeMillis() - 1000;
        ScenarioResult r = new ScenarioResult(new Scenario("s", false, true));
        Timeline.measure(
                job(List.of(new Backend.RunState(true, injectedAt + 200))),
                new Timeline.Pace(Duration.ofMillis(5), Duration.ofMillis(1300), Duration.ofMillis(300)),
                injectedAt,
                null,
                r);
        assertThat(r.recoveryMillis)
                .as("the job's own time, not when it was seen")
                .isEqualTo(200L);
    }

    @Test
    void aJobRunningThroughoutRodeTheFaultOut() {
        long injectedAt = System.currentTimeMillis();
        assertThat(measure(job(List.of(new Backend.RunState(true, injectedAt - 1))), injectedAt, null).recoveryMillis)
                .isNull();
        assertThat(measure(job(List.of(new Backend.RunState(true, null))), injectedAt, null).recoveryMillis)
                .isNull();
    }

    @Test
    void aJobRunningBeforeTheRecoveryTheStrikeWaitedForRecoveredThen() {
        long injectedAt = System.currentTimeMillis() - 1000;
        ScenarioResult r =
                measure(job(List.of(new Backend.RunState(true, injectedAt + 300))), injectedAt, injectedAt + 700);
        assertThat(r.recoveryMillis).isEqualTo(300L);
    }

    @Test
    void aRunningSinceOutsideTheFaultAndTheRecoveryIsNotTheRecoveredJob() {
        long injectedAt = 10_000;
        long recoveredAt = 10_700;
        assertThat(Timeline.recoveredSince(injectedAt, recoveredAt, new Backend.RunState(true, injectedAt - 1)))
                .as("the job that was struck")
                .isEqualTo(recoveredAt);
        assertThat(Timeline.recoveredSince(injectedAt, recoveredAt, new Backend.RunState(true, recoveredAt + 5)))
                .as("a restart after the recovery")
                .isEqualTo(recoveredAt);
        assertThat(Timeline.recoveredSince(injectedAt, recoveredAt, new Backend.RunState(false, injectedAt + 5)))
                .as("a job not running")
                .isEqualTo(recoveredAt);
        assertThat(Timeline.recoveredSince(injectedAt, recoveredAt, new Backend.RunState(true, injectedAt + 5)))
                .isEqualTo(injectedAt + 5);
    }

    @Test
    void aRecoveryTheStrikeWaitedForIsTaken() {
        long injectedAt = System.currentTimeMillis() - 1000;
        ScenarioResult r = measure(job(List.of(new Backend.RunState(true, null))), injectedAt, injectedAt + 700);
        assertThat(r.recoveryMillis).isEqualTo(700L);
    }
}
