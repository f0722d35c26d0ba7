package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;

import org.junit.jupiter.api.Test;

import java.util.List;

/**
 * The short drill that runs in every build: a TaskManager kill, a JobManager failover on
 * ZooKeeper HA and on Kubernetes HA (a real kube-apiserver, the Flink ServiceAccount's RBAC from
 * manifests/rbac) must leave the table exact, and the no-checkpoints control must be caught by the
 * same verifier.
 */
class ShortDrillIT {

    @Test
    void tmKillAndJmFailoversStayExactAndTheNoCheckpointControlIsCaught() throws Exception {
        LocalDrill.Settings settings = LocalDrill.settingsFromSystemProperties();
        List<ScenarioResult> results = LocalDrill.run(
                settings,
                List.of(
                        LocalScenario.of(Fault.TM_KILL, 0.5),
                        LocalScenario.of(Fault.JM_FAILOVER, 0.5),
                        LocalScenario.jmFailoverOnKubernetesHa(),
                        LocalScenario.noCheckpointsControl()));

        ScenarioResult tmKill = results.get(0);
        ScenarioResult jmFailover = results.get(1);
        ScenarioResult jmFailoverK8s = results.get(2);
        ScenarioResult control = results.get(3);
        assertThat(jmFailoverK8s.error).isNull();
        assertThat(jmFailoverK8s.problems).isEmpty();
        assertThat(jmFailoverK8s.recoveryMillis)
                .as("the standby took over through ConfigMap locks")
                .isNotNull();
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
