package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.observe.Annotations;
import io.lineflow.settings.LineflowSettings;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

/** What a deployment's audit reads: its job's topic, group and rules, through the reconciler's connections. */
class AuditPlanTest {
    private static final Configuration RECONCILER = ReconcilerOptions.fromMap(Map.of(
            "audit.jdbc-url", "jdbc:postgresql://Postgres:5432/lineflow?sslmode=verify-full",
            "audit.jdbc-user", "auditor",
            "kafka.bootstrap-servers", "kafka-0:9093,kafka-1:9093"));

    private static Configuration job(String... more) {
        String[] args = new String[more.length + 4];
        args[0] = "--lineflow.kafka.bootstrap-servers";
        args[1] = "kafka-1:9093,kafka-2:9093";
        args[2] = "--lineflow.jdbc.url";
        args[3] = "jdbc:postgresql://postgres/lineflow";
        System.arraycopy(more, 0, args, 4, more.length);
        return LineflowSettings.read(new Configuration(), args, Map.of(), path -> null);
    }

    @Test
    void theJobGivesTopicGroupAndRulesTheReconcilerTheConnections() throws Exception {
        Audit.Settings s = AuditPlan.of(
                job(
                        "--lineflow.kafka.topic",
                        "line-b",
                        "--lineflow.kafka.group-id",
                        "g-b",
                        "--lineflow.window.size",
                        "10 min"),
                Map.of(),
                RECONCILER,
                "pw");
        assertThat(s.topic()).isEqualTo("line-b");
        assertThat(s.group()).isEqualTo("g-b");
        assertThat(s.rules().windowMillis()).isEqualTo(Duration.ofMinutes(10).toMillis());
        assertThat(s.bootstrap()).isEqualTo("kafka-0:9093,kafka-1:9093");
        assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://Postgres:5432/lineflow?sslmode=verify-full");
        assertThat(s.jdbcUser()).isEqualTo("auditor");
        assertThat(s.jdbcPassword()).isEqualTo("pw");
    }

    @Test
    void anotherDatabaseIsNotAuditedUnlessAnAnnotationNamesIt() throws Exception {
        Configuration other = job("--lineflow.jdbc.url", "jdbc:postgresql://postgres:5432/line_b");
        assertThatThrownBy(() -> AuditPlan.of(other, Map.of(), RECONCILER, null))
                .isInstanceOf(AuditPlan.NotAuditable.class)
                .hasMessageContaining("the job writes to the database postgres:5432/line_b (lineflow.jdbc.url)")
                .hasMessageContaining("reads postgres:5432/lineflow")
                .hasMessageContaining(Annotations.AUDIT_JDBC_URL);
        assertThat(AuditPlan.of(
                                other,
                                Map.of(Annotations.AUDIT_JDBC_URL, "jdbc:postgresql://postgres:5432/line_b"),
                                RECONCILER,
                                null)
                        .jdbcUrl())
                .isEqualTo("jdbc:postgresql://postgres:5432/line_b");
    }

    @Test
    void anotherKafkaClusterIsNotAuditedUnlessAnAnnotationNamesIt() throws Exception {
        Configuration other = job("--lineflow.kafka.bootstrap-servers", "other-kafka:9092");
        assertThatThrownBy(() -> AuditPlan.of(other, Map.of(), RECONCILER, null))
                .isInstanceOf(AuditPlan.NotAuditable.class)
                .hasMessageContaining("the job reads Kafka at other-kafka:9092")
                .hasMessageContaining(Annotations.KAFKA_BOOTSTRAP);
        assertThat(AuditPlan.of(other, Map.of(Annotations.KAFKA_BOOTSTRAP, "other-kafka:9092"), RECONCILER, null)
                        .bootstrap())
                .isEqualTo("other-kafka:9092");
    }

    @Test
    void aDatabaseIsItsServersAndName() {
        assertThat(AuditPlan.database("jdbc:postgresql://DB:5432/lineflow?user=x&password=secret"))
                .isEqualTo("db:5432/lineflow");
        assertThat(AuditPlan.database("jdbc:postgresql://db/lineflow")).isEqualTo("db:5432/lineflow");
        assertThat(AuditPlan.database("jdbc:postgresql://a:1,b:2/x")).isEqualTo("a:1,b:2/x");
        assertThat(AuditPlan.database("jdbc:mysql://db/x")).isEqualTo("(not a PostgreSQL JDBC URL)");
    }
}
