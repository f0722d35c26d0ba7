package io.lineflow.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Settings parse from --set and env vars; bad ones fail with the key, the value and what is allowed. */
class ReconcilerOptionsTest {

    @Test
    void everyOptionHasADefaultAndADescriptionUnderThePrefix() {
        assertThat(ReconcilerOptions.all()).hasSizeGreaterThan(20).allSatisfy(o -> {
            assertThat(o.key()).startsWith(ReconcilerOptions.PREFIX);
            assertThat(o.hasDefaultValue()).isTrue();
            assertThat(ReconcilerOptions.describe(o)).isNotBlank();
        });
    }

    @Test
    void acceptsKeysWithOrWithoutThePrefixAndFlinkDurations() {
        Configuration c =
                ReconcilerOptions.fromMap(Map.of("interval", "1 min", "lineflow.reconciler.namespaces", "a;b"));
        assertThat(c.get(ReconcilerOptions.INTERVAL)).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.get(ReconcilerOptions.NAMESPACES)).containsExactly("a", "b");
    }

    @Test
    void unknownSettingFailsNamingTheKnownOnes() {
        assertThatThrownBy(() -> ReconcilerOptions.fromMap(Map.of("intervall", "1 min")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("intervall")
                .hasMessageContaining("lineflow.reconciler.interval");
    }

    @Test
    void unparsableValueFailsWithKeyValueAndDescription() {
        assertThatThrownBy(() -> ReconcilerOptions.fromMap(Map.of("restart-loop.threshold", "many")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lineflow.reconciler.restart-loop.threshold")
                .hasMessageContaining("many")
                .hasMessageContaining("Restarts within the window");
    }

    @Test
    void securityProtocolDefaultsToPlaintextAndTakesKafkasNamesFromEnvOrSet() {
        assertThat(ReconcilerOptions.fromMap(Map.of()).get(ReconcilerOptions.KAFKA_SECURITY_PROTOCOL))
                .isEqualTo(SecurityProtocol.PLAINTEXT);
        assertThat(ReconcilerOptions.fromMap(
                                ReconcilerOptions.fromEnv(Map.of("LINEFLOW_RECONCILER_KAFKA_SECURITY_PROTOCOL", "SSL")))
                        .get(ReconcilerOptions.KAFKA_SECURITY_PROTOCOL))
                .isEqualTo(SecurityProtocol.SSL);
        assertThat(ReconcilerOptions.fromMap(Map.of("kafka.security-protocol", "SASL_SSL"))
                        .get(ReconcilerOptions.KAFKA_SECURITY_PROTOCOL))
                .isEqualTo(SecurityProtocol.SASL_SSL);
    }

    @Test
    void unknownSecurityProtocolFailsWithKeyValueAndKafkasProtocols() {
        // "TLS" is what people write; Kafka calls it SSL.
        assertThatThrownBy(() -> ReconcilerOptions.fromMap(Map.of("kafka.security-protocol", "TLS")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lineflow.reconciler.kafka.security-protocol")
                .hasMessageContaining("'TLS'")
                .hasMessageContaining(String.join(", ", SecurityProtocol.names()));
    }

    @Test
    void envVarsMapToOptionKeys() {
        Map<String, String> s = ReconcilerOptions.fromEnv(Map.of(
                "LINEFLOW_RECONCILER_FLINK_REST_TIMEOUT", "2 s",
                "LINEFLOW_RECONCILER_REMEDIATION_ENABLED", "false",
                "PATH", "/usr/bin"));
        assertThat(s)
                .containsOnly(
                        Map.entry("lineflow.reconciler.flink.rest-timeout", "2 s"),
                        Map.entry("lineflow.reconciler.remediation.enabled", "false"));
        assertThat(ReconcilerOptions.fromMap(s).get(ReconcilerOptions.REMEDIATION_ENABLED))
                .isFalse();
        assertThat(List.of(ReconcilerOptions.defaultText(ReconcilerOptions.INTERVAL)))
                .containsExactly("30 s");
    }

    @Test
    void theRetiredAuditDeploymentFailsAtStartUpNamingItsKeyAndWhatToDo() {
        Map<String, String> env = ReconcilerOptions.fromEnv(Map.of("LINEFLOW_RECONCILER_AUDIT_DEPLOYMENT", "lineflow"));
        assertThatThrownBy(() -> ReconcilerOptions.fromMap(env))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'lineflow.reconciler.audit.deployment' (value 'lineflow') is retired")
                .hasMessageContaining("every lineflow FlinkDeployment the reconciler watches is audited")
                .hasMessageContaining("lineflow.io/audit: \"false\"")
                .hasMessageContaining("env LINEFLOW_RECONCILER_AUDIT_DEPLOYMENT");
        assertThatThrownBy(() -> ReconcilerOptions.fromMap(Map.of("audit.deployment", "ns/lineflow")))
                .hasMessageContaining("is retired");
    }
}
