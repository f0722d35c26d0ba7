package io.lineflow.reconciler.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.TestUtils;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.TreeSet;

/** A deployment's key reads, and sorts, as the {@code namespace/name} text it replaced. */
class DeploymentKeyTest {
    @Test
    void aDeploymentsKeyIsItsNamespaceAndName() {
        DeploymentKey key = DeploymentKey.of(TestUtils.flinkDeployment("lines", "line-a"));

        assertThat(key).isEqualTo(new DeploymentKey("lines", "line-a"));
        assertThat(key).hasToString("lines/line-a");
    }

    @Test
    void aManifestWithoutANamespaceReadsAsItsName() {
        assertThat(new DeploymentKey(null, "line-a")).hasToString("line-a");
    }

    @Test
    void keysSortAsTheirText() {
        // By component "a" would come before "a-x"; as text '-' sorts before '/'.
        TreeSet<DeploymentKey> keys =
                new TreeSet<>(List.of(new DeploymentKey("a", "b"), new DeploymentKey("a-x", "c")));

        assertThat(keys).containsExactly(new DeploymentKey("a-x", "c"), new DeploymentKey("a", "b"));
    }
}
