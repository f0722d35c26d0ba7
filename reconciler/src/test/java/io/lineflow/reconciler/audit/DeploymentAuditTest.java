package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.TestingClock;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.controller.Reconciler;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.AuditStatus;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.observe.Annotations;
import io.lineflow.reconciler.observe.TestingFlinkRestClient;
import io.lineflow.reconciler.observe.TestingKafkaObserver;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.table.WindowTable.Difference;
import io.lineflow.testing.TestServices;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The continuous audit of every lineflow deployment, each with its own job's settings, read from
 * where the job reads them (a ConfigMap mounted at the {@code --config} path, {@code
 * spec.flinkConfiguration}, {@code spec.job.args}) in fabric8's mock API server, on a real topic and
 * a real table per deployment (in-JVM Kafka, embedded PostgreSQL), through the reconciler's pass.
 *
 * <p>Line A's job takes late events for 3 minutes ({@code lineflow.window.allowed-lateness} in its
 * ConfigMap), line B's counts 10-minute windows ({@code lineflow.window.size} in its {@code
 * spec.flinkConfiguration}, its group in its arguments), each into a database of its own. The same
 * events go to both topics, among them a piece of d1 stamped 11:13:30 that arrives when the
 * watermark is at 11:16:50: within line A's lateness, beyond the default's. With the default rules
 * (what the audit recounted with before issue 44) line A's correct row d1@11:10 is WRONG and every
 * one of line B's rows differs.
 */
@EnableKubernetesMockClient(crud = true)
class DeploymentAuditTest {
    private static final Path WORK = Path.of("target", "it", "deployment-audit");
    private static final Instant NOW = Instant.parse("2026-11-01T12:00:00Z");
    private static final String NS = "lines";
    /** Line A's job: 5-min windows that take late events for 3 minutes, not 1. */
    private static final Rules LINE_A = rules(Duration.ofMinutes(5), Duration.ofMinutes(3));
    /** Line B's job: 10-min windows, the default lateness. */
    private static final Rules LINE_B = rules(Duration.ofMinutes(10), Rules.DEFAULT_LATENESS);

    private static final List<WindowRecount.Input> SENT_A = new ArrayList<>();
    private static final List<WindowRecount.Input> SENT_B = new ArrayList<>();

    @RegisterExtension
    static final TestServices SERVICES = TestServices.under(WORK);

    KubernetesClient client;
    TestingClock clock;
    Metrics metrics;
    Reconciler reconciler;
    AuditLoop audit;

    private static Rules rules(Duration window, Duration lateness) {
        Rules d = Rules.defaults();
        return new Rules(
                window.toMillis(),
                lateness.toMillis(),
                d.outOfOrdernessMillis(),
                d.maxBytes(),
                d.maxFutureMillis(),
                d.earliestMillis(),
                d.silentFillMillis());
    }

    @BeforeAll
    static void start() throws Exception {
        SERVICES.kafka().createTopic("line-a-events", 1);
        SERVICES.kafka().createTopic("line-b-events", 1);
        database("line_a");
        database("line_b");
        SENT_A.addAll(produce("line-a-events", "line-a"));
        SENT_B.addAll(produce("line-b-events", "line-b"));
    }

    /** What each job wrote for its input: the recount with its own rules. */
    @BeforeEach
    void correctTables() throws Exception {
        write("line_a", SENT_A, LINE_A);
        write("line_b", SENT_B, LINE_B);
        clock = new TestingClock(NOW);
        Configuration conf = ReconcilerOptions.fromMap(Map.of(
                "audit.jdbc-url", SERVICES.postgres().jdbcUrl("line_a"),
                "kafka.bootstrap-servers", SERVICES.kafka().bootstrapServers(),
                "audit.span", "1 h"));
        metrics = new Metrics(conf, clock);
        TestingFlinkRestClient rest = new TestingFlinkRestClient()
                .answerAll(url -> TestUtils.flink(TestUtils.job(
                        JobStatus.RUNNING,
                        0,
                        TestUtils.checkpoints(clock.instant().minusSeconds(20), 50, 0),
                        TestUtils.source(100))));
        audit = new AuditLoop(conf, null, JobSettings.from(client), metrics, clock);
        reconciler = TestUtils.reconciler(
                conf,
                client,
                rest,
                new TestingKafkaObserver(clock, 100, 500, Duration.ofDays(7)),
                audit,
                metrics,
                clock);
    }

    @AfterEach
    void stop() {
        audit.close();
        reconciler.close();
    }

    /**
     * 10:00–11:55, a piece a minute from d1 and d2, and one late piece of d1's: stamped 11:13:30
     * (window 11:10–11:15), sent after 11:17, when the watermark is at 11:16:50. The job's group
     * {@code group} has committed the end of the topic (its checkpoint).
     */
    static List<WindowRecount.Input> produce(String topic, String group) throws Exception {
        List<String[]> events = new ArrayList<>();
        for (int m = 0; m <= 115; m++) {
            events.add(new String[] {"d1", at(m, 0)});
            events.add(new String[] {"d2", at(m, 20)});
            if (m == 77) {
                events.add(new String[] {"d1", at(73, 30)});
            }
        }
        List<WindowRecount.Input> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long producedAt = Instant.parse(at(0, 0)).toEpochMilli();
            int n = 0;
            for (String[] e : events) {
                byte[] key = e[0].getBytes(StandardCharsets.UTF_8);
                byte[] value = String.format(
                                "{\"eventId\":\"%s-%d\",\"deviceId\":\"%s\",\"lineId\":\"L1\",\"type\":\"PIECE_PRODUCED\","
                                        + "\"ts\":\"%s\",\"count\":1}",
                                topic, n++, e[0], e[1])
                        .getBytes(StandardCharsets.UTF_8);
                // Produced in this order, at its event time or just after the one before it.
                producedAt = Math.max(producedAt, Instant.parse(e[1]).toEpochMilli());
                p.send(new ProducerRecord<>(topic, 0, producedAt, key, value));
                sent.add(new WindowRecount.Input(0, producedAt, key, value));
            }
        }
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of("bootstrap.servers", SERVICES.kafka().bootstrapServers(), "group.id", group),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(sent.size())));
        }
        return sent;
    }

    private static String at(int minuteAfterTen, int second) {
        return Instant.parse("2026-11-01T10:00:00Z")
                .plusSeconds(minuteAfterTen * 60L + second)
                .toString();
    }

    /** A database with the job's own schema. */
    static void database(String name) throws Exception {
        try (Connection c = SERVICES.postgres().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        try (Connection c = DriverManager.getConnection(SERVICES.postgres().jdbcUrl(name))) {
            TestUtils.jobSchema(c);
        }
    }

    private static void sql(String database, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(SERVICES.postgres().jdbcUrl(database));
                Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }

    private static void write(String database, List<WindowRecount.Input> sent, Rules rules) throws Exception {
        sql(database, "TRUNCATE device_window_stats");
        try (Connection c = DriverManager.getConnection(SERVICES.postgres().jdbcUrl(database))) {
            TableRows.write(
                    c, WindowRecount.recount(sent, rules).rows().values(), rules.windowMillis(), TableRows.REPLACING);
        }
    }

    // --- the deployments, as their manifests give the job its settings --------------------------

    private static final String BASE = "lineflow.kafka.bootstrap-servers=%s\nlineflow.jdbc.user=postgres\n";

    private void configMap(String name, String properties) {
        client.configMaps()
                .inNamespace(NS)
                .resource(new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .endMetadata()
                        .addToData("lineflow.properties", properties)
                        .build())
                .create();
    }

    /** Line A: everything in its ConfigMap, lateness 3 min; its database is the reconciler's. */
    private void lineA() {
        configMap(
                "line-a-config-5f7c9",
                String.format(BASE, SERVICES.kafka().bootstrapServers())
                        + "lineflow.kafka.topic=line-a-events\nlineflow.kafka.group-id=line-a\n"
                        + "lineflow.jdbc.url=" + SERVICES.postgres().jdbcUrl("line_a") + "\n"
                        + "lineflow.window.allowed-lateness=3 min\n");
        client.resource(TestUtils.lineflowDeployment(NS, "line-a", "line-a-config-5f7c9"))
                .create();
    }

    /**
     * Line B: 10-min windows in spec.flinkConfiguration, its group in its arguments, the rest in its
     * ConfigMap; its database is another, named to the reconciler by annotation.
     */
    private void lineB() {
        configMap(
                "line-b-config",
                String.format(BASE, SERVICES.kafka().bootstrapServers())
                        + "lineflow.kafka.topic=line-b-events\nlineflow.kafka.group-id=not-this-one\n"
                        + "lineflow.jdbc.url=" + SERVICES.postgres().jdbcUrl("line_b") + "\n");
        FlinkDeployment fd = TestUtils.lineflowDeployment(NS, "line-b", "line-b-config");
        fd.getSpec().getFlinkConfiguration().put("lineflow.window.size", "10 min");
        fd.getSpec()
                .getJob()
                .setArgs(new String[] {"--config", TestUtils.SETTINGS_FILE, "--lineflow.kafka.group-id", "line-b"});
        fd.getMetadata()
                .setAnnotations(
                        Map.of(Annotations.AUDIT_JDBC_URL, SERVICES.postgres().jdbcUrl("line_b")));
        client.resource(fd).create();
    }

    /** Line C: line A's table, but a lateness in its ConfigMap that is not a duration. */
    private void lineCWithBadLateness() {
        configMap(
                "line-c-config",
                String.format(BASE, SERVICES.kafka().bootstrapServers())
                        + "lineflow.jdbc.url=" + SERVICES.postgres().jdbcUrl("line_a") + "\n"
                        + "lineflow.window.allowed-lateness=a while\n");
        client.resource(TestUtils.lineflowDeployment(NS, "line-c", "line-c-config"))
                .create();
    }

    /** A pass hands the deployments to the audit, a round audits them, the next pass judges them. */
    private Map<DeploymentKey, HealthResult> auditAndPass() {
        pass();
        audit.runSafely();
        return pass();
    }

    private Map<DeploymentKey, HealthResult> pass() {
        Map<DeploymentKey, HealthResult> r = reconciler.pass(
                client.resources(FlinkDeployment.class).inNamespace(NS).list().getItems());
        clock.advance(Duration.ofSeconds(30));
        return r;
    }

    private static Optional<Finding> audit(Map<DeploymentKey, HealthResult> results, String name, FindingCode code) {
        return results.get(new DeploymentKey(NS, name)).find(code);
    }

    private AuditReport latest(String name) {
        AuditStatus s = audit.latestFor(new DeploymentKey(NS, name));
        assertThat(s).as("the audit's status of " + name).isNotNull();
        assertThat(s.notAudited()).as("why " + name + " is not audited").isNull();
        s.latest().lines().forEach(l -> System.out.println(name + ": " + l));
        return s.latest();
    }

    // --- the tests --------------------------------------------------------------------------------

    /** The negative control: this input does tell the rules apart (the false alarm of issue 44). */
    @Test
    void withTheDefaultRulesLineAsCorrectRowWouldBeWrong() throws Exception {
        Audit.Settings defaults = new Audit.Settings(
                SERVICES.kafka().bootstrapServers(),
                Map.of(),
                "line-a-events",
                "line-a",
                Duration.ofHours(1),
                Rules.defaults(),
                1_000_000,
                SERVICES.postgres().jdbcUrl("line_a"),
                null,
                null,
                Duration.ofSeconds(30));
        assertThat(Audit.run(defaults, clock).differences())
                .extracting(Difference::toString)
                .contains("WRONG d1@2026-11-01T11:10:00Z pieces_produced: expected 5, got 6");
    }

    @Test
    void aDeploymentWithItsOwnLatenessAndOneWithItsOwnWindowEachAuditClean() {
        lineA();
        lineB();

        Map<DeploymentKey, HealthResult> results = auditAndPass();

        AuditReport a = latest("line-a");
        AuditReport b = latest("line-b");
        assertThat(a.differences()).isEmpty();
        assertThat(b.differences()).isEmpty();
        // Line A: d1 and d2 in the 5-min windows 11:00–11:45 (11:50 and 11:55 still take late events).
        assertThat(a.matched()).isEqualTo(20);
        // Line B: d1 and d2 in the 10-min windows 11:00–11:40 (11:50 still open).
        assertThat(b.matched()).isEqualTo(10);
        assertThat(a.late()).as("no event of line A is late within 3 minutes").isZero();
        for (String name : List.of("line-a", "line-b")) {
            assertThat(audit(results, name, FindingCode.AUDIT_MISMATCH)).isEmpty();
            assertThat(audit(results, name, FindingCode.AUDIT_NOT_RUN)).isEmpty();
        }
        assertThat(metrics.render())
                .contains("lineflow_audit_rows{namespace=\"lines\",deployment=\"line-a\",result=\"matched\"} 20")
                .contains("lineflow_audit_rows{namespace=\"lines\",deployment=\"line-b\",result=\"matched\"} 10")
                .contains(
                        "lineflow_audit_runs_total{namespace=\"lines\",deployment=\"line-b\",outcome=\"completed\"} 1");
    }

    @Test
    void aWrongRowInOneDeploymentsTableIsReportedForThatDeploymentOnly() throws Exception {
        lineA();
        lineB();
        sql(
                "line_b",
                "UPDATE device_window_stats SET pieces_produced = 99"
                        + " WHERE device_id = 'd2' AND window_start = '2026-11-01T11:20:00Z'");

        Map<DeploymentKey, HealthResult> results = auditAndPass();

        assertThat(audit(results, "line-b", FindingCode.AUDIT_MISMATCH))
                .hasValueSatisfying(f -> assertThat(f.message())
                        .contains("WRONG d2@2026-11-01T11:20:00Z pieces_produced: expected 10, got 99"));
        assertThat(audit(results, "line-a", FindingCode.AUDIT_MISMATCH)).isEmpty();
        assertThat(latest("line-a").clean()).isTrue();
        assertThat(metrics.render())
                .contains("lineflow_audit_rows{namespace=\"lines\",deployment=\"line-b\",result=\"wrong\"} 1")
                .contains("lineflow_audit_rows{namespace=\"lines\",deployment=\"line-a\",result=\"wrong\"} 0");
    }

    @Test
    void badSettingsAreAFindingNamingKeyValueAndWhatIsAllowedAndTheOthersAreStillAudited() {
        lineA();
        lineCWithBadLateness();
        lineB();

        Map<DeploymentKey, HealthResult> results = auditAndPass();

        assertThat(audit(results, "line-c", FindingCode.AUDIT_NOT_RUN))
                .hasValueSatisfying(f -> assertThat(f.message())
                        .contains("lineflow.window.allowed-lateness = 'a while' is invalid;"
                                + " expected a duration such as '500 ms', '30 s', '5 min' or '1 h'"));
        assertThat(latest("line-a").clean()).isTrue();
        assertThat(latest("line-b").clean()).isTrue();
        assertThat(audit(results, "line-a", FindingCode.AUDIT_NOT_RUN)).isEmpty();
        assertThat(metrics.render()).doesNotContain("deployment=\"line-c\"");
    }

    @Test
    void aDeploymentOptedOutIsNotAuditedAndOneWhoseTableTheReconcilerDoesNotReachSaysSo() {
        lineA();
        FlinkDeployment out = TestUtils.lineflowDeployment(NS, "line-a-canary", "line-a-config-5f7c9");
        out.getMetadata().setAnnotations(Map.of(Annotations.AUDIT, "false"));
        client.resource(out).create();
        // Line B without the annotation: the reconciler's audit.jdbc-url is line A's database.
        lineB();
        FlinkDeployment b = client.resources(FlinkDeployment.class)
                .inNamespace(NS)
                .withName("line-b")
                .get();
        b.getMetadata().setAnnotations(Map.of());
        client.resource(b).update();
        // A file the reconciler cannot read: the ConfigMap is not there.
        client.resource(TestUtils.lineflowDeployment(NS, "line-d", "line-d-config-gone"))
                .create();

        Map<DeploymentKey, HealthResult> results = auditAndPass();

        assertThat(audit.latestFor(new DeploymentKey(NS, "line-a-canary"))).isNull();
        assertThat(results.get(new DeploymentKey(NS, "line-a-canary")).codes())
                .doesNotContain(FindingCode.AUDIT_MISMATCH, FindingCode.AUDIT_NOT_RUN);
        assertThat(audit(results, "line-b", FindingCode.AUDIT_NOT_RUN))
                .hasValueSatisfying(f -> assertThat(f.message())
                        .contains("/line_b (lineflow.jdbc.url)")
                        .contains("/line_a: the audit would judge another job's table")
                        .contains(Annotations.AUDIT_JDBC_URL));
        assertThat(audit(results, "line-d", FindingCode.AUDIT_NOT_RUN))
                .hasValueSatisfying(f -> assertThat(f.message())
                        .contains("--config " + TestUtils.SETTINGS_FILE + " cannot be read")
                        .contains("ConfigMap line-d-config-gone does not exist in namespace lines"));
        assertThat(latest("line-a").clean()).isTrue();
    }

    /**
     * A deployment handed to the audit has its runs counted from then on: before any round, and
     * after rounds that never come, its completed runs read 0 (which LineflowAuditNotCompleting
     * sees) rather than no series at all; one found not auditable has none (AUDIT_NOT_RUN says why).
     */
    @Test
    void aDeploymentWatchedButNotYetAuditedCountsZeroCompletedRuns() {
        lineA();
        lineCWithBadLateness();

        pass();

        assertThat(metrics.render())
                .contains(
                        "lineflow_audit_runs_total{namespace=\"lines\",deployment=\"line-a\",outcome=\"completed\"} 0")
                .contains("lineflow_audit_runs_total{namespace=\"lines\",deployment=\"line-a\",outcome=\"failed\"} 0");
        auditAndPass();
        assertThat(metrics.render())
                .contains(
                        "lineflow_audit_runs_total{namespace=\"lines\",deployment=\"line-a\",outcome=\"completed\"} 1")
                .doesNotContain("deployment=\"line-c\"");
    }
}
