package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;

import org.junit.jupiter.api.Test;

import java.util.List;

/** The scenario lists {@code --scenarios} accepts, and what each scenario is in the report. */
class KubernetesScenarioTest {
    private static List<String> ids(List<KubernetesScenario> scenarios) {
        return scenarios.stream().map(KubernetesScenario::id).toList();
    }

    @Test
    void controlsRunLastWhateverTheOrderGiven() {
        // A control leaves the deployment broken on purpose: a fault after it would be judged on it.
        assertThat(ids(KubernetesScenario.parse("control:additive-sink,steady,jm-kill")))
                .containsExactly("steady", "jm-kill", "control:additive-sink");
    }

    @Test
    void allIsSteadyEveryKubernetesFaultAndTheControlsLast() {
        // The order e2e runs them in, and the ids CI and docs/e2e.md name.
        assertThat(ids(KubernetesScenario.parse("all")))
                .containsExactly(
                        "steady",
                        "jm-pod-delete",
                        "jm-kill",
                        "tm-pod-kill",
                        "operator-restart",
                        "db-outage",
                        "kafka-restart",
                        "suspend-resume",
                        "last-state-upgrade",
                        "savepoint-upgrade",
                        "node-restart",
                        "control:additive-sink",
                        "control:no-checkpoints");
        assertThat(KubernetesScenario.parse("faults"))
                .noneMatch(KubernetesScenario::isControl)
                .hasSize(Fault.on(Backend.Kind.KUBERNETES).size() + 1);
    }

    @Test
    void aMisspeltScenarioIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> KubernetesScenario.parse("steady,jm-pod-delet"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'jm-pod-delet'")
                .hasMessageContaining("jm-pod-delete")
                .hasMessageContaining("control:no-checkpoints");
    }

    @Test
    void onlyTheFaultScenariosAndTheControlsInject() {
        assertThat(KubernetesScenario.STEADY.scenario().injects()).isFalse();
        assertThat(KubernetesScenario.parse("db-outage,control:no-checkpoints"))
                .allMatch(s -> s.scenario().injects());
        assertThat(KubernetesScenario.parse("control:no-checkpoints").get(0).scenario())
                .extracting(s -> s.name(), s -> s.control())
                .containsExactly("kubernetes:control:no-checkpoints", true);
    }
}
