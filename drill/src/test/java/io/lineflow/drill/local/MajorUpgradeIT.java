package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;

import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * Flink's major upgrade, 1.20 to 2.2, on the local multi-process cluster: lineflow built for each
 * line from this tree, the 1.20 job (on the drill's heap state backend) stopped with a canonical
 * savepoint and restored by
 * the 2.2 job on a 2.2 cluster, halfway through the input; and the rollback, back to 1.20 from
 * that savepoint after 2.2 has checkpointed and written rows. The table must be exact both times.
 * The negative control makes the same upgrade but submits the 2.2 job without the savepoint: the
 * same verifier must find the windows that were open at the stop wrong.
 */
class MajorUpgradeIT {

    @Test
    void theMajorUpgradeAndItsRollbackLeaveTheTableExactAndTheUpgradeWithoutSavepointIsCaught() throws Exception {
        LocalDrill.Settings settings = LocalDrill.settingsFromSystemProperties();
        assertThat(settings.nextLine)
                .as("the next line's build (drill/pom.xml, next-line-build)")
                .isNotNull();

        List<ScenarioResult> results = LocalDrill.run(
                settings,
                List.of(
                        LocalScenario.of(Fault.MAJOR_UPGRADE, 0.5),
                        LocalScenario.of(Fault.MAJOR_ROLLBACK, 0.5),
                        LocalScenario.majorUpgradeWithoutSavepointControl()));

        for (ScenarioResult upgrade : results.subList(0, 2)) {
            assertThat(upgrade.error).as(upgrade.scenario.name()).isNull();
            assertThat(upgrade.problems).as(upgrade.scenario.name()).isEmpty();
            assertThat(upgrade.recoveryMillis)
                    .as("%s: the job went down and came back", upgrade.scenario.name())
                    .isNotNull();
        }
        ScenarioResult control = results.get(2);
        assertThat(control.error).isNull();
        assertThat(control.recoveryMillis)
                .as("the control's job went down and came back on 2.2")
                .isNotNull();
        assertThat(control.problems)
                .as("the verifier catches the upgrade without its savepoint")
                .isNotEmpty();
        assertThat(control.wrong)
                .as("windows open at the stop reported wrong, in %s", control.problems)
                .isPositive();
    }
}
