package io.lineflow.drill;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short drill that runs in every build: a TaskManager kill and a JobManager failover must
 * leave the table exact, and the no-checkpoints control must be caught by the same verifier.
 */
class ShortDrillIT {

    @Test
    void tmKillAndJmFailoverStayExactAndTheNoCheckpointControlIsCaught() throws Exception {
        ScenarioRunner.Settings settings = Drill.settingsFromSystemProperties();
        List<ScenarioResult> results =
                Drill.run(
                        settings,
                        List.of(
                                Scenario.of(Fault.TM_KILL, 0.5),
                                Scenario.of(Fault.JM_FAILOVER, 0.5),
                                Scenario.noCheckpointsControl()));

        ScenarioResult tmKill = results.get(0);
        ScenarioResult jmFailover = results.get(1);
        ScenarioResult control = results.get(2);
        assertThat(tmKill.error).isNull();
        assertThat(tmKill.problems).isEmpty();
        assertThat(tmKill.recoveryMillis).as("the job went down and came back").isNotNull();
        assertThat(jmFailover.error).isNull();
        assertThat(jmFailover.problems).isEmpty();
        assertThat(jmFailover.recoveryMillis).isNotNull();
        assertThat(control.error).isNull();
        assertThat(control.problems).as("the verifier catches the lossy job").isNotEmpty();
    }
}
