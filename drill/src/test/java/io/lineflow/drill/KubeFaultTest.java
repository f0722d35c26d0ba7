package io.lineflow.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.List;

class KubeFaultTest {
    @Test
    void controlsRunLastWhateverTheOrderGiven() {
        // A control leaves the deployment broken on purpose: a fault after it would be judged on it.
        assertThat(KubeFault.parse("control:additive-sink,steady,jm-kill"))
                .containsExactly(KubeFault.STEADY, KubeFault.JM_KILL, KubeFault.CONTROL_ADDITIVE_SINK);
    }

    @Test
    void allIsEveryScenarioOnceWithTheControlsLast() {
        List<KubeFault> all = KubeFault.parse("all");
        assertThat(all).containsExactlyInAnyOrder(KubeFault.values());
        assertThat(all.subList(all.size() - 2, all.size()))
                .containsExactly(KubeFault.CONTROL_ADDITIVE_SINK, KubeFault.CONTROL_NO_CHECKPOINTS);
        assertThat(KubeFault.parse("faults")).noneMatch(f -> f.control).hasSize(all.size() - 2);
    }

    @Test
    void aMisspeltScenarioIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> KubeFault.parse("steady,jm-pod-delet"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'jm-pod-delet'")
                .hasMessageContaining("jm-pod-delete")
                .hasMessageContaining("control:no-checkpoints");
    }
}
