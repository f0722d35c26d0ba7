package io.lineflow.reconciler;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.act.EventPublisher;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.act.Remediator;
import io.lineflow.reconciler.act.SummaryPublisher;
import io.lineflow.reconciler.audit.AuditLoop;
import io.lineflow.reconciler.controller.Reconciler;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Checkpoints;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.FlinkObservation.Source;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.KubernetesStatus;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.FlinkRestClient;
import io.lineflow.reconciler.observe.HistoryStore;
import io.lineflow.reconciler.observe.KafkaObserver;
import io.lineflow.reconciler.observe.SpecReader;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.FlinkVersion;
import org.apache.flink.kubernetes.operator.api.spec.JobManagerSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.spec.TaskManagerSpec;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Builders for deployments and observations shaped like lineflow's, healthy unless changed. */
public final class TestUtils {

    public static final Instant NOW = Instant.parse("2026-11-01T10:30:00Z");
    public static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private TestUtils() {}

    /**
     * A healthy configuration for the checks to judge: 60 s exactly-once checkpoints,
     * RETAIN_ON_CANCELLATION, s3 storage, RocksDB, Kubernetes HA. Not a copy of the manifests (their
     * timeout, pauses and backend differ); the rendered overlays themselves are linted by {@code
     * OverlayLintTest} and {@code make lint}.
     */
    public static Map<String, String> goodConf() {
        Map<String, String> c = new HashMap<>();
        c.put("execution.checkpointing.interval", "60 s");
        c.put("execution.checkpointing.mode", "EXACTLY_ONCE");
        c.put("execution.checkpointing.timeout", "2 min");
        c.put("execution.checkpointing.min-pause", "10 s");
        c.put("execution.checkpointing.tolerable-failed-checkpoints", "3");
        c.put("execution.checkpointing.max-concurrent-checkpoints", "1");
        c.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        c.put("state.checkpoints.dir", "s3://lineflow/checkpoints");
        c.put("state.savepoints.dir", "s3://lineflow/savepoints");
        c.put("state.backend.type", "rocksdb");
        c.put("high-availability.type", "kubernetes");
        c.put("high-availability.storageDir", "s3://lineflow/ha");
        c.put("restart-strategy.type", "exponential-delay");
        return c;
    }

    public static SpecObservation spec(Map<String, String> conf) {
        return SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(conf)
                .upgradeMode(UpgradeMode.LAST_STATE)
                .desiredState(JobState.RUNNING)
                .build();
    }

    public static SpecObservation goodSpec() {
        return spec(goodConf());
    }

    public static Configuration options() {
        return ReconcilerOptions.fromMap(Map.of());
    }

    public static Checkpoints checkpoints(Instant latestCompletedAt, long completed, long failed) {
        return lineflowCheckpoints()
                .completed(completed)
                .failed(failed)
                .latestCompleted(
                        latestCompletedAt == null ? null : completed,
                        latestCompletedAt,
                        latestCompletedAt == null ? null : "s3://lineflow/checkpoints/abc/chk-" + completed)
                .build();
    }

    /** Checkpointing configured as in {@link #goodConf()}: 60 s interval, 2 min timeout, 3 tolerable failures. */
    public static Checkpoints.Builder lineflowCheckpoints() {
        return Checkpoints.builder().config(Duration.ofSeconds(60), Duration.ofMinutes(2), 3, true);
    }

    public static Job job(JobStatus state, long restarts, Checkpoints cp, Source source) {
        return new Job(
                "abc",
                "lineflow",
                state,
                NOW.minus(Duration.ofHours(2)),
                restarts,
                cp,
                source == null ? List.of() : List.of(source),
                Set.of());
    }

    /** A KafkaSource whose readers hold every one of the 4 partitions twice, emitting 200/s. */
    public static Source doubledSource() {
        return new Source(
                "v1",
                "Source: kafka-source",
                4,
                KafkaReader.KAFKA_SOURCE,
                Set.of("device-events"),
                200.0,
                8,
                partitions("device-events", 0, 1, 2, 3));
    }

    public static Source source(double rate) {
        return new Source(
                "v1",
                "Source: kafka-source -> parse",
                4,
                KafkaReader.KAFKA_SOURCE,
                Set.of("device-events"),
                rate,
                4,
                partitions("device-events", 0, 1, 2, 3));
    }

    public static FlinkObservation flink(Job job) {
        return new FlinkObservation("http://lineflow-rest.flink.svc:8081", null, job);
    }

    public static FlinkObservation healthyFlink() {
        return flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(30), 120, 0), source(100)));
    }

    /** The partitions {@code ps} of {@code topic}. */
    public static Set<TopicPartition> partitions(String topic, int... ps) {
        return Arrays.stream(ps).mapToObj(p -> new TopicPartition(topic, p)).collect(Collectors.toSet());
    }

    public static KafkaObservation kafka(long endOffsetSum, Long lag, Duration retention) {
        return KafkaObservation.builder("kafka:9092", List.of("device-events"), "lineflow", NOW)
                .partitions(4)
                .endOffsetSum(endOffsetSum)
                .committedOffsetSum(lag == null ? null : endOffsetSum - lag)
                .lag(lag)
                .retention(retention)
                .build();
    }

    public static KafkaObservation healthyKafka() {
        return kafka(1_000_000, 500L, Duration.ofDays(7));
    }

    public static KubernetesStatus runningStatus() {
        return new KubernetesStatus(
                JobStatus.RUNNING, JobManagerDeploymentStatus.READY, ResourceLifecycleState.STABLE, null);
    }

    public static Observation observation(FlinkObservation flink, KafkaObservation kafka, List<Sample> history) {
        return new Observation(NOW, goodSpec(), runningStatus(), flink, kafka, history);
    }

    public static Sample sample(Duration ago, Long restarts, Long failed, Long endOffsetSum, Long lag) {
        return new Sample(
                NOW.minus(ago),
                restarts,
                failed,
                endOffsetSum == null && lag == null ? List.of() : List.of("device-events"),
                endOffsetSum,
                endOffsetSum == null || lag == null ? null : endOffsetSum - lag,
                lag);
    }

    // --- Kubernetes objects ------------------------------------------------------------------

    /** A FlinkDeployment like lineflow's, in {@code namespace}, healthy spec and RUNNING status. */
    public static FlinkDeployment flinkDeployment(String namespace, String name) {
        FlinkDeployment fd = new FlinkDeployment();
        fd.setMetadata(
                new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
        FlinkDeploymentSpec spec = new FlinkDeploymentSpec();
        spec.setFlinkVersion(FlinkVersion.v1_20);
        spec.setImage("lineflow/job:test");
        spec.setServiceAccount("flink");
        spec.setFlinkConfiguration(new HashMap<>(goodConf()));
        JobManagerSpec jm = new JobManagerSpec();
        jm.setReplicas(1);
        spec.setJobManager(jm);
        spec.setTaskManager(new TaskManagerSpec());
        JobSpec job = new JobSpec();
        job.setJarURI("local:///opt/flink/usrlib/lineflow-job.jar");
        job.setParallelism(4);
        job.setUpgradeMode(UpgradeMode.LAST_STATE);
        spec.setJob(job);
        fd.setSpec(spec);
        fd.setStatus(runningDeploymentStatus());
        return fd;
    }

    /** Where lineflow's manifests mount the job's settings file, and the argument that names it. */
    public static final String SETTINGS_FILE = "/etc/lineflow/lineflow.properties";

    /**
     * A deployment like lineflow's that reads its settings as the manifests give them: {@code
     * --config /etc/lineflow/lineflow.properties}, from the ConfigMap {@code configMap} mounted at
     * {@code /etc/lineflow} in the main container (manifests/flink/flinkdeployment.yaml).
     */
    public static FlinkDeployment lineflowDeployment(String namespace, String name, String configMap) {
        FlinkDeployment fd = flinkDeployment(namespace, name);
        fd.getSpec().getJob().setArgs(new String[] {"--config", SETTINGS_FILE});
        fd.getSpec()
                .setPodTemplate(new PodTemplateSpecBuilder()
                        .withNewSpec()
                        .addNewContainer()
                        .withName(SpecReader.MAIN_CONTAINER)
                        .addNewVolumeMount()
                        .withName("lineflow-config")
                        .withMountPath("/etc/lineflow")
                        .withReadOnly(true)
                        .endVolumeMount()
                        .endContainer()
                        .addNewVolume()
                        .withName("lineflow-config")
                        .withNewConfigMap()
                        .withName(configMap)
                        .endConfigMap()
                        .endVolume()
                        .endSpec()
                        .build());
        return fd;
    }

    /**
     * The reconciler as {@code Main} wires it, on {@code client}, with {@code rest} and {@code kafka}
     * (fakes, in tests) for Flink's REST API and Kafka, and the continuous audit {@code audit} ({@code
     * null}: none).
     */
    public static Reconciler reconciler(
            Configuration conf,
            KubernetesClient client,
            FlinkRestClient rest,
            KafkaObserver kafka,
            AuditLoop audit,
            Metrics metrics,
            Clock clock) {
        EventPublisher events = new EventPublisher(client, conf, clock);
        return new Reconciler(
                conf,
                new DeploymentObserver(conf, rest, kafka, clock),
                audit,
                events,
                new SummaryPublisher(client, conf, clock),
                new Remediator(client, events, conf, clock),
                metrics,
                new HistoryStore(conf.get(ReconcilerOptions.HISTORY_RETENTION)),
                clock);
    }

    /** The status the operator writes for a running job. */
    public static FlinkDeploymentStatus runningDeploymentStatus() {
        FlinkDeploymentStatus status = new FlinkDeploymentStatus();
        status.setJobManagerDeploymentStatus(JobManagerDeploymentStatus.READY);
        org.apache.flink.kubernetes.operator.api.status.JobStatus js =
                new org.apache.flink.kubernetes.operator.api.status.JobStatus();
        js.setState(JobStatus.RUNNING);
        js.setJobId("abc");
        status.setJobStatus(js);
        return status;
    }

    public static PodTemplateSpec podTemplate(String yamlishVolumeType, String mountPath) {
        PodTemplateSpecBuilder b = new PodTemplateSpecBuilder();
        var spec = b.withNewSpec()
                .addNewContainer()
                .withName(SpecReader.MAIN_CONTAINER)
                .addNewVolumeMount()
                .withName("state")
                .withMountPath(mountPath)
                .endVolumeMount()
                .endContainer();
        var vol = spec.addNewVolume().withName("state");
        if (yamlishVolumeType.equals("pvc")) {
            vol.withNewPersistentVolumeClaim().withClaimName("lineflow-state").endPersistentVolumeClaim();
        } else {
            vol.withNewEmptyDir().endEmptyDir();
        }
        return vol.endVolume().endSpec().build();
    }

    /** The job's own schema (its migrations, in order) created over {@code c}. */
    public static void jobSchema(Connection c) throws IOException, SQLException {
        try (Statement s = c.createStatement();
                Stream<Path> migrations = Files.list(Path.of("../job/src/main/resources/db/migration"))) {
            for (Path m : migrations.sorted().toList()) {
                s.execute(Files.readString(m));
            }
        }
    }
}
