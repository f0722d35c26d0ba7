package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The scenario lists {@code --scenarios} accepts, and what each scenario is in the report. */
class KubernetesScenarioTest {
    private static final String V1_20 = "v1_20";
    private static final String V2_2 = "v2_2";

    private static List<String> ids(List<KubernetesScenario> scenarios) {
        return scenarios.stream().map(KubernetesScenario::id).toList();
    }

    @Test
    void controlsRunLastWhateverTheOrderGiven() {
        // A control leaves the deployment broken on purpose: a fault after it would be judged on it.
        assertThat(ids(KubernetesScenario.parse("control:additive-sink,steady,jm-kill", V1_20)))
                .containsExactly("steady", "jm-kill", "control:additive-sink");
    }

    @Test
    void theScenariosCiRunsKeepTheirIdsAndTheirOrder() throws IOException {
        // .ci/run: make e2e E2E_SCENARIOS=…; the ids are also the report's scenario names, and the
        // order is chosen (the incident before the upgrade's third TaskManager, s3-outage last).
        Matcher ci =
                Pattern.compile("make e2e E2E_SCENARIOS=(\\S+)").matcher(Files.readString(Path.of("..", ".ci", "run")));
        assertThat(ci.find()).as(".ci/run names the scenarios it runs").isTrue();
        assertThat(String.join(",", ids(KubernetesScenario.parse(ci.group(1), V1_20))))
                .isEqualTo(ci.group(1));
    }

    @Test
    void allIsSteadyEveryKubernetesFaultTheIncidentsAndTheControlsLast() {
        List<String> expected = new ArrayList<>(List.of("steady"));
        Fault.on(Backend.Kind.KUBERNETES).stream()
                .filter(f -> !f.changesFlinkLine())
                .forEach(f -> expected.add(f.id));
        // The major upgrade and its rollback after every fault that keeps the line.
        expected.addAll(List.of("major-upgrade", "major-rollback"));
        expected.add("incident:beam-kafkaio");
        expected.addAll(List.of("control:additive-sink", "control:no-checkpoints"));
        assertThat(ids(KubernetesScenario.parse("all", V1_20))).isEqualTo(expected);
        assertThat(ids(KubernetesScenario.parse("faults", V1_20))).isEqualTo(expected.subList(0, expected.size() - 2));
    }

    /**
     * On 2.2 (the e2e overlay e2e-flink-2.2) {@code all} is every scenario but those that need an
     * older line: the major upgrade and rollback, and the operator upgrade from 1.10.0. The same
     * list on 1.20 keeps them: the filter is the deployment's line, not the list.
     */
    @Test
    void onTheNewestLineAllLeavesOutWhatNeedsAnOlderOne() {
        List<String> onOld = ids(KubernetesScenario.parse("all", V1_20));
        List<String> onNew = ids(KubernetesScenario.parse("all", V2_2));
        List<String> expected = new ArrayList<>(onOld);
        expected.removeAll(List.of("major-upgrade", "major-rollback", "operator-upgrade"));
        assertThat(onOld).contains("major-upgrade", "major-rollback", "operator-upgrade");
        assertThat(onNew).isEqualTo(expected).contains("jm-leader-delete", "incident:beam-kafkaio");
        assertThat(ids(KubernetesScenario.parse("faults", V2_2))).doesNotContain("major-upgrade");
    }

    @Test
    void aScenarioNamedThatCannotRunOnTheDeploymentsLineIsRefusedWithWhy() {
        assertThatThrownBy(() -> KubernetesScenario.parse("steady,major-upgrade", V2_2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'major-upgrade' cannot run here")
                .hasMessageContaining("already runs flinkVersion v2_2");
        assertThatThrownBy(() -> KubernetesScenario.parse("operator-upgrade", V2_2))
                .hasMessageContaining("only up to v1_20");
        assertThat(ids(KubernetesScenario.parse("operator-upgrade,major-upgrade", V1_20)))
                .containsExactly("operator-upgrade", "major-upgrade");
    }

    @Test
    void aMisspeltScenarioIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> KubernetesScenario.parse("steady,jm-pod-delet", V1_20))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'jm-pod-delet'")
                .hasMessageContaining("jm-pod-delete")
                .hasMessageContaining("control:no-checkpoints");
    }

    @Test
    void onlyTheFaultScenariosAndTheControlsInject() {
        assertThat(KubernetesScenario.STEADY.scenario().injects()).isFalse();
        assertThat(KubernetesScenario.parse("db-outage,control:no-checkpoints", V1_20))
                .allMatch(s -> s.scenario().injects());
        assertThat(KubernetesScenario.parse("control:no-checkpoints", V1_20)
                        .get(0)
                        .scenario())
                .extracting(s -> s.name(), s -> s.control())
                .containsExactly("kubernetes:control:no-checkpoints", true);
    }

    @Test
    void everyScenarioSaysWhatItRaisesAndALocalFaultIsNoKubernetesScenario() {
        assertThat(KubernetesScenario.all())
                .allSatisfy(s -> assertThat(s.raises()).isNotNull());
        assertThat(KubernetesScenario.of(Fault.JM_LEADER_DELETE).raises())
                .containsExactly(KubernetesScenario.JOB_RESTARTED);
        assertThat(KubernetesScenario.of(Fault.DB_OUTAGE).raises()).isEmpty();
        // The incident's job is not lineflow's: its restore raises no restart alert, the
        // reconciler's duplicate finding does.
        assertThat(KubernetesScenario.of(KubernetesScenario.Incident.BEAM_KAFKAIO)
                        .raises())
                .containsExactly("LineflowDuplicateConsumption");
        assertThat(KubernetesScenario.parse("incident:beam-kafkaio", V1_20)
                        .get(0)
                        .scenario())
                .extracting(s -> s.name(), s -> s.control(), s -> s.injects())
                .containsExactly("kubernetes:incident:beam-kafkaio", false, false);
        assertThatThrownBy(() -> KubernetesScenario.of(Fault.PARTITION_JM).raises())
                .hasMessageContaining("partition-jm is not a fault of the Kubernetes drill");
    }
}
