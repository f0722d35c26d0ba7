package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;

import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * Flink's major upgrade, 1.20 to 2.2, on the local multi-process cluster: lineflow built for each
 * line from this tree, the 1.20 job stopped with a canonical savepoint on RocksDB and restored by
 * the 2.2 job on a 2.2 cluster, halfway through the input; and the rollback, back to 1.20 from
 * that savepoint after 2.2 has checkpointed and written rows. The table must be exact both times.
 */
class MajorUpgradeIT {

    @Test
    void theMajorUpgradeAndItsRollbackLeaveTheTableExact() throws Exception {
        LocalDrill.Settings settings = LocalDrill.settingsFromSystemProperties();
        assertThat(settings.nextLine)
                .as("the next line's build (drill/pom.xml, next-line-build)")
                .isNotNull();

        List<ScenarioResult> results = LocalDrill.run(
                settings,
                List.of(LocalScenario.of(Fault.MAJOR_UPGRADE, 0.5), LocalScenario.of(Fault.MAJOR_ROLLBACK, 0.5)));

        for (ScenarioResult result : results) {
            assertThat(result.error).as(result.scenario.name()).isNull();
            assertThat(result.problems).as(result.scenario.name()).isEmpty();
            assertThat(result.recoveryMillis)
                    .as("%s: the job went down and came back", result.scenario.name())
                    .isNotNull();
        }
    }
}
