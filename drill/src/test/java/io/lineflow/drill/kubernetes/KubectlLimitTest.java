package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.time.Duration;

/**
 * A kubectl call that waits is given the time it waits for: a CI run killed a delete told to
 * wait 180 s after 90 s.
 */
class KubectlLimitTest {
    @Test
    void aCallThatWaitsGetsItsWaitOnTopOfTheLimit() {
        assertThat(Kubectl.processLimit("delete", "flinkdeployment/lineflow", "--wait=true", "--timeout=180s"))
                .isEqualTo(Duration.ofSeconds(270));
        assertThat(Kubectl.processLimit("get", "pod", "-o", "name")).isEqualTo(Duration.ofSeconds(90));
    }
}
