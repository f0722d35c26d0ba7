package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.TestUtils.CLOCK;
import static io.lineflow.reconciler.TestUtils.NOW;
import static io.lineflow.reconciler.TestUtils.checkpoints;
import static io.lineflow.reconciler.TestUtils.flink;
import static io.lineflow.reconciler.TestUtils.healthyFlink;
import static io.lineflow.reconciler.TestUtils.healthyKafka;
import static io.lineflow.reconciler.TestUtils.job;
import static io.lineflow.reconciler.TestUtils.kafka;
import static io.lineflow.reconciler.TestUtils.lineflowCheckpoints;
import static io.lineflow.reconciler.TestUtils.observation;
import static io.lineflow.reconciler.TestUtils.options;
import static io.lineflow.reconciler.TestUtils.sample;
import static io.lineflow.reconciler.TestUtils.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.checks.DuplicateConsumptionCheck.Evidence;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Checkpoints;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.model.KubernetesStatus;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Sample;
import io.lineflow.reconciler.model.Severity;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.lifecycle.ResourceLifecycleState;
import org.apache.flink.kubernetes.operator.api.spec.JobState;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Each runtime check with a fixed clock, healthy and unhealthy, and the evaluator that joins them. */
class ChecksTest {

    private static final Check JOB_STATE = new JobStateCheck();
    private static final Check RESTARTS = new RestartCheck();
    private static final Check DUPLICATES = new DuplicateConsumptionCheck();
    private static final Check OBSERVERS = new ObservationCheck();

    private final Configuration conf = options();

    @Test
    void healthyObservationWithHistoryHasNoFindings() {
        Observation o = observation(
                healthyFlink(),
                healthyKafka(),
                List.of(
                        sample(Duration.ofMinutes(5), 0L, 0L, 1_000_000L - 30_000, 500L),
                        sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L - 6_000, 500L)));
        assertThat(new HealthEvaluator(conf, CLOCK).evaluate(o).findings()).isEmpty();
    }

    @Test
    void reportsJobNotRunningFromFlinkState() {
        Observation o = observation(flink(job(JobStatus.FAILED, 0, checkpoints(NOW, 1, 0), null)), null, List.of());
        HealthResult r = JOB_STATE.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.JOB_NOT_RUNNING);
        assertThat(r.worst()).contains(Severity.CRITICAL);
    }

    @Test
    void reportsRestartingJobAsWarningNotCritical() {
        Observation o = observation(flink(job(JobStatus.RESTARTING, 1, checkpoints(NOW, 1, 0), null)), null, List.of());
        assertThat(JOB_STATE.evaluate(o, conf, CLOCK).worst()).contains(Severity.WARNING);
    }

    @Test
    void reportsJobNotRunningFromOperatorStatusWhenRestIsDown() {
        Observation o = new Observation(
                NOW,
                TestUtils.goodSpec(),
                new KubernetesStatus(
                        JobStatus.FAILED, JobManagerDeploymentStatus.ERROR, ResourceLifecycleState.FAILED, "boom"),
                FlinkObservation.failed("http://x", "ConnectException: refused"),
                null,
                List.of());
        HealthResult r = JOB_STATE.evaluate(o, conf, CLOCK);
        assertThat(r.has(FindingCode.JOB_NOT_RUNNING)).isTrue();
        assertThat(r.findings().get(0).message()).contains("boom");
    }

    @Test
    void runningJobIsNotReportedAndSuspendedJobIsOnlyInfo() {
        assertThat(JOB_STATE
                        .evaluate(observation(healthyFlink(), null, List.of()), conf, CLOCK)
                        .findings())
                .isEmpty();
        var suspended = io.lineflow.reconciler.model.SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(TestUtils.goodConf())
                .upgradeMode(UpgradeMode.LAST_STATE)
                .desiredState(JobState.SUSPENDED)
                .build();
        Observation o = new Observation(
                NOW,
                suspended,
                new KubernetesStatus(
                        JobStatus.SUSPENDED, JobManagerDeploymentStatus.READY, ResourceLifecycleState.SUSPENDED, null),
                null,
                null,
                List.of());
        assertThat(JOB_STATE.evaluate(o, conf, CLOCK).worst()).contains(Severity.INFO);
    }

    @Test
    void unreachableRestEndpointIsAFindingNotACrash() {
        Observation o = observation(
                FlinkObservation.failed("http://lineflow-rest:8081", "HttpConnectTimeoutException: timed out"),
                null,
                List.of());
        HealthResult r = new HealthEvaluator(conf, CLOCK).evaluate(o);
        assertThat(r.has(FindingCode.OBSERVATION_FAILED)).isTrue();
        assertThat(r.find(FindingCode.OBSERVATION_FAILED).get().evidence()).containsEntry("source", "flink-rest");
    }

    @Test
    void reportsRestartLoopWhenRestartsGrowWithinWindow() {
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 7, checkpoints(NOW, 5, 0), null)),
                null,
                List.of(
                        sample(Duration.ofMinutes(8), 3L, 0L, null, null),
                        sample(Duration.ofMinutes(4), 5L, 0L, null, null)));
        HealthResult r = RESTARTS.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.RESTART_LOOP);
        assertThat(r.findings().get(0).evidence()).containsEntry("restartsInWindow", 4L);
    }

    @Test
    void doesNotReportOldRestartsOutsideTheWindow() {
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 7, checkpoints(NOW, 5, 0), null)),
                null,
                List.of(
                        sample(Duration.ofMinutes(30), 0L, 0L, null, null),
                        sample(Duration.ofMinutes(5), 6L, 0L, null, null)));
        assertThat(RESTARTS.evaluate(o, conf, CLOCK).findings()).isEmpty();
    }

    @Test
    void reportsStaleCheckpointWhenNoneCompletedWithinWindow() {
        // max(60 s, 2 min) × (3 + 2) = 10 min allowed; latest is 11 min old.
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minus(Duration.ofMinutes(11)), 10, 0), null)),
                null,
                List.of());
        HealthResult r = CheckpointCheck.checkpointStale(o, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.CHECKPOINT_STALE);
        assertThat(r.findings().get(0).evidence())
                .containsEntry("allowedSeconds", 600L)
                .containsEntry("checkpointAgeSeconds", 660L);
    }

    @Test
    void doesNotReportCheckpointJustInsideTheWindow() {
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minus(Duration.ofMinutes(9)), 10, 0), null)),
                null,
                List.of());
        assertThat(CheckpointCheck.checkpointStale(o, CLOCK).findings()).isEmpty();
    }

    @Test
    void reportsStaleWhenNoCheckpointEverCompletedLongAfterStart() {
        Observation o = observation(flink(job(JobStatus.RUNNING, 0, checkpoints(null, 0, 0), null)), null, List.of());
        assertThat(CheckpointCheck.checkpointStale(o, CLOCK).findings().get(0).message())
                .contains("since the job started");
    }

    /** lineflow's checkpoints with {@code completed} done, the latest at {@code latestAt}, and one expired 20 s ago. */
    private static Checkpoints expiredTwentySecondsAgo(long completed, long failed, Instant latestAt) {
        return lineflowCheckpoints()
                .completed(completed)
                .failed(failed)
                .latestCompleted(completed, latestAt, "s3://x/chk-" + completed)
                .latestFailed(NOW.minusSeconds(20), "Checkpoint expired before completing.")
                .build();
    }

    @Test
    void reportsCheckpointFailuresCountedFromHistory() {
        Checkpoints cp = expiredTwentySecondsAgo(100, 4, NOW.minusSeconds(50));
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, cp, null)),
                null,
                List.of(sample(Duration.ofMinutes(5), 0L, 1L, null, null)));
        HealthResult r = CheckpointCheck.checkpointFailures(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.CHECKPOINT_FAILURES);
        assertThat(r.worst()).contains(Severity.CRITICAL);
        assertThat(r.findings().get(0).evidence()).containsEntry("failedInWindow", 3L);
    }

    @Test
    void refusedTriggersWhileTaskManagersStartAreNotCheckpointFailures() {
        // Seen on the e2e cluster, at the first start and again after a JobManager pod was
        // replaced: the job runs before its TaskManager pod does, Flink refuses the triggers and
        // counts them as failed, but no failed checkpoint exists (latest failed: none).
        Observation starting = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(null, 0, 2), null)),
                null,
                List.of(sample(Duration.ofMinutes(1), 0L, 0L, null, null)));
        assertThat(CheckpointCheck.checkpointFailures(starting, conf, CLOCK).findings())
                .isEmpty();
        Observation recovered = observation(
                flink(job(JobStatus.RUNNING, 1, checkpoints(NOW.minusSeconds(5), 24, 4), null)),
                null,
                List.of(
                        sample(Duration.ofMinutes(5), 0L, 0L, null, null),
                        sample(Duration.ofMinutes(1), 1L, 3L, null, null)));
        assertThat(CheckpointCheck.checkpointFailures(recovered, conf, CLOCK).findings())
                .isEmpty();

        // The same counts with a checkpoint that did fail since the restore are reported.
        Checkpoints failed = expiredTwentySecondsAgo(24, 4, NOW.minusSeconds(5));
        Observation failing = observation(
                flink(job(JobStatus.RUNNING, 1, failed, null)),
                null,
                List.of(
                        sample(Duration.ofMinutes(5), 0L, 0L, null, null),
                        sample(Duration.ofMinutes(1), 1L, 3L, null, null)));
        assertThat(CheckpointCheck.checkpointFailures(failing, conf, CLOCK).codes())
                .containsExactly(FindingCode.CHECKPOINT_FAILURES);
    }

    @Test
    void checkpointsThatFailedBeforeTheLatestRestoreAreNotReported() {
        // Seen under the operator during a 15 s database outage: the sink could not flush, the
        // checkpoint failed, the job restarted and has checkpointed fine since. The restart was
        // reported; counting the failures as well kept the job DEGRADED for ten minutes.
        Checkpoints beforeRestore = Checkpoints.builder()
                .config(Duration.ofSeconds(10), Duration.ofMinutes(2), 0, true)
                .completed(40)
                .failed(2)
                .latestCompleted(40L, NOW.minusSeconds(5), "s3://x/chk-40")
                .latestFailed(NOW.minusSeconds(95), "Checkpoint Coordinator is suspending.")
                .build();
        List<Sample> history = List.of(
                sample(Duration.ofMinutes(3), 0L, 0L, null, null),
                sample(Duration.ofSeconds(100), 0L, 1L, null, null),
                sample(Duration.ofSeconds(90), 1L, 2L, null, null));
        Observation restored = observation(flink(job(JobStatus.RUNNING, 1, beforeRestore, null)), null, history);
        assertThat(CheckpointCheck.checkpointFailures(restored, conf, CLOCK).findings())
                .isEmpty();

        // Without the restart the same failures are reported.
        List<Sample> noRestart = history.stream()
                .map(x -> new Sample(x.at(), 0L, x.checkpointsFailed(), List.of(), null, null, null))
                .toList();
        Observation notRestored = observation(flink(job(JobStatus.RUNNING, 0, beforeRestore, null)), null, noRestart);
        assertThat(CheckpointCheck.checkpointFailures(notRestored, conf, CLOCK).codes())
                .containsExactly(FindingCode.CHECKPOINT_FAILURES);
    }

    @Test
    void oldCheckpointFailuresAreNotReported() {
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(30), 100, 2), null)),
                null,
                List.of(sample(Duration.ofMinutes(5), 0L, 2L, null, null)));
        assertThat(CheckpointCheck.checkpointFailures(o, conf, CLOCK).findings())
                .isEmpty();
    }

    @Test
    void reportsLatestCheckpointWithoutExternalPath() {
        Checkpoints cp = Checkpoints.builder()
                .config(Duration.ofSeconds(60), Duration.ofMinutes(2), 0, false)
                .completed(5)
                .latestCompleted(5L, NOW, CheckpointCheck.NOT_ADDRESSABLE)
                .build();
        assertThat(CheckpointCheck.checkpointNotExternal(
                                observation(flink(job(JobStatus.RUNNING, 0, cp, null)), null, List.of()))
                        .has(FindingCode.CHECKPOINT_NOT_EXTERNAL))
                .isTrue();
        assertThat(CheckpointCheck.checkpointNotExternal(observation(healthyFlink(), null, List.of()))
                        .findings())
                .isEmpty();
    }

    @Test
    void reportsKafkaRetentionShorterThanCheckpointAgePlusAllowances() {
        // stale window 10 min + 30 min detection + 4 h recovery = 4h40m; one hour of retention is too short.
        Observation o = observation(healthyFlink(), kafka(1000, 0L, Duration.ofHours(1)), List.of());
        HealthResult r = KafkaCheck.kafkaRetentionTooShort(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.KAFKA_RETENTION_TOO_SHORT);
        assertThat(r.findings().get(0).evidence()).containsEntry("requiredSeconds", 600L + 1800 + 14400);
        assertThat(KafkaCheck.kafkaRetentionTooShort(
                                observation(healthyFlink(), kafka(1000, 0L, null), List.of()), conf, CLOCK)
                        .findings())
                .as("unlimited retention")
                .isEmpty();
        assertThat(KafkaCheck.kafkaRetentionTooShort(
                                observation(healthyFlink(), healthyKafka(), List.of()), conf, CLOCK)
                        .findings())
                .isEmpty();
    }

    @Test
    void reportsGrowingConsumerLag() {
        Observation o = observation(
                healthyFlink(),
                kafka(1_000_000, 60_000L, Duration.ofDays(7)),
                List.of(
                        sample(Duration.ofMinutes(8), 0L, 0L, 900_000L, 10_000L),
                        sample(Duration.ofMinutes(5), 0L, 0L, 940_000L, 25_000L),
                        sample(Duration.ofMinutes(2), 0L, 0L, 970_000L, 45_000L)));
        HealthResult r = KafkaCheck.consumerLagGrowing(o, conf);
        assertThat(r.codes()).containsExactly(FindingCode.CONSUMER_LAG_GROWING);
        assertThat(r.findings().get(0).evidence()).containsEntry("lag", 60_000L);
    }

    @Test
    void doesNotReportSawtoothLagThatIsNotGrowing() {
        Observation o = observation(
                healthyFlink(),
                kafka(1_000_000, 6_000L, Duration.ofDays(7)),
                List.of(
                        sample(Duration.ofMinutes(8), 0L, 0L, 900_000L, 5_000L),
                        sample(Duration.ofMinutes(5), 0L, 0L, 940_000L, 12_000L),
                        sample(Duration.ofMinutes(2), 0L, 0L, 970_000L, 4_000L)));
        assertThat(KafkaCheck.consumerLagGrowing(o, conf).findings()).isEmpty();
    }

    @Test
    void reportsDuplicateConsumptionWhenSourceEmitsTwiceTheProduceRate() {
        // 6000 records in 60 s = 100/s produced; the source emits 199/s.
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), source(199))),
                kafka(1_006_000, 500L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 500L)));
        HealthResult r = DUPLICATES.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat((Double) r.findings().get(0).evidence().get("ratio"))
                .isCloseTo(1.99, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void theReplayAfterARestoreIsNotDuplicateConsumption() {
        // Seen under the operator after a broker restart: the tasks restarted from the last
        // checkpoint and re-read what came after it; the committed offsets did not move back, so
        // the source emitted 4.7 times the consumption rate. The replay is correct, not a double read.
        FlinkObservation.Job taskRestart =
                job(JobStatus.RUNNING, 1, checkpoints(NOW.minusSeconds(10), 10, 0), source(199));
        Observation afterTaskRestart = observation(
                flink(taskRestart),
                kafka(1_006_000, 500L, Duration.ofDays(7)),
                List.of(
                        sample(Duration.ofSeconds(150), 0L, 0L, 991_000L, 500L),
                        sample(Duration.ofSeconds(60), 1L, 0L, 1_000_000L, 500L)));
        assertThat(DUPLICATES.evaluate(afterTaskRestart, conf, CLOCK).findings())
                .isEmpty();
        FlinkObservation.Job failedOver = new FlinkObservation.Job(
                "abc",
                "lineflow",
                JobStatus.RUNNING,
                NOW.minusSeconds(90),
                0L,
                checkpoints(NOW.minusSeconds(10), 10, 0),
                List.of(source(199)),
                Set.of());
        Observation afterFailover = observation(
                flink(failedOver),
                kafka(1_006_000, 500L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 500L)));
        assertThat(DUPLICATES.evaluate(afterFailover, conf, CLOCK).findings()).isEmpty();
    }

    @Test
    void aBacklogDrainedAfterABrokerOutageIsNotDuplicateConsumption() {
        // Seen under the operator after a broker restart, with no restart of the job: the source
        // drained ~800 waiting records 40 s ago and reads 14/s since. Its own rate, averaged over
        // 60 s, is 26/s. Over the last 25 s the topic grew by 14/s with no lag left to catch up
        // (ratio 1.88, a false CRITICAL); over the 60 s the source's rate covers, the backlog shows
        // as the lag that went away.
        FlinkObservation.Job job = job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(5), 10, 0), source(26));
        Observation o = observation(
                flink(job),
                kafka(1_001_000, 0L, Duration.ofDays(7)),
                List.of(
                        sample(Duration.ofSeconds(65), 0L, 0L, 1_000_090L, 800L),
                        sample(Duration.ofSeconds(25), 0L, 0L, 1_000_650L, 0L)));
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).findings()).isEmpty();

        Configuration shortSpan = ReconcilerOptions.fromMap(Map.of(ReconcilerOptions.DUPLICATE_MIN_SPAN.key(), "20 s"));
        assertThat(DUPLICATES.evaluate(o, shortSpan, CLOCK).codes())
                .as("the span the check used before: the false finding")
                .contains(FindingCode.DUPLICATE_CONSUMPTION);
    }

    @Test
    void aDoubleReadLongAfterTheLastRestoreIsStillCaught() {
        FlinkObservation.Job restartedLongAgo =
                job(JobStatus.RUNNING, 1, checkpoints(NOW.minusSeconds(10), 10, 0), source(199));
        Observation o = observation(
                flink(restartedLongAgo),
                kafka(1_006_000, 500L, Duration.ofDays(7)),
                List.of(
                        sample(Duration.ofSeconds(300), 1L, 0L, 976_000L, 500L),
                        sample(Duration.ofSeconds(60), 1L, 0L, 1_000_000L, 500L)));
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).codes()).containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
    }

    @Test
    void catchingUpAfterDowntimeIsNotDuplicateConsumption() {
        // 100/s produced, lag shrinking by 100/s: the source rightly emits 200/s.
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), source(200))),
                kafka(1_006_000, 4_000L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 10_000L)));
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).findings()).isEmpty();
        assertThat(DuplicateConsumptionCheck.rates(o, conf).get().ratio())
                .isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void reportsDuplicateConsumptionWhenMoreReaderAssignmentsThanPartitions() {
        FlinkObservation.Source doubled = new FlinkObservation.Source(
                "v1",
                "Source: kafka-source",
                4,
                KafkaReader.KAFKA_SOURCE,
                Set.of("device-events"),
                null,
                8,
                TestUtils.partitions("device-events", 0, 1, 2, 3));
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW, 10, 0), doubled)), healthyKafka(), List.of());
        HealthResult r = DUPLICATES.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(r.findings().get(0).evidence())
                .containsEntry("assignedSplits", 8)
                .containsEntry("topicPartitions", 4)
                .containsEntry(DuplicateConsumptionCheck.EVIDENCE, Evidence.PARTITION_HELD_TWICE_BY_ONE_SOURCE);
        assertThat(DuplicateConsumptionCheck.remediable(r))
                .as("a reader restored twice: a restart gives each partition one reader again")
                .isTrue();
    }

    @Test
    void reportsDuplicateConsumptionWhenTwoSourcesEachReadEveryPartition() {
        // Each source alone looks healthy: 4 readers, 4 partitions.
        Set<TopicPartition> all = TestUtils.partitions("device-events", 0, 1, 2, 3);
        FlinkObservation.Job twoSources = new FlinkObservation.Job(
                "abc",
                "lineflow",
                JobStatus.RUNNING,
                NOW.minusSeconds(3600),
                0L,
                checkpoints(NOW, 10, 0),
                List.of(
                        new FlinkObservation.Source(
                                "v1",
                                "Source: kafka-source",
                                4,
                                KafkaReader.KAFKA_SOURCE,
                                Set.of("device-events"),
                                100.0,
                                4,
                                all),
                        new FlinkObservation.Source(
                                "v7",
                                "Source: replayed-events",
                                4,
                                KafkaReader.KAFKA_SOURCE,
                                Set.of("device-events"),
                                100.0,
                                4,
                                all)),
                Set.of());
        Observation o = observation(
                flink(twoSources),
                kafka(1_006_000, 0L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 0L)));
        HealthResult r = DUPLICATES.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(r.findings().get(0).evidence())
                .containsEntry("assignedSplits", 8)
                .containsEntry("kafkaSources", 2)
                .containsEntry(DuplicateConsumptionCheck.EVIDENCE, Evidence.SOURCES_SHARE_PARTITIONS);
        assertThat(r.findings().get(0).message()).contains("replayed-events", "would not end it");
        assertThat(DuplicateConsumptionCheck.remediable(r))
                .as("the job is built with two sources: a restart builds it so again")
                .isFalse();
        assertThat(DuplicateConsumptionCheck.rates(o, conf).orElseThrow().ratio())
                .as("both sources' rates summed")
                .isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void sourceWithoutARateMakesTheSumUnknownNotSmaller() {
        Set<TopicPartition> all = TestUtils.partitions("device-events", 0, 1, 2, 3);
        FlinkObservation.Job job = new FlinkObservation.Job(
                "abc",
                "lineflow",
                JobStatus.RUNNING,
                NOW.minusSeconds(3600),
                0L,
                checkpoints(NOW, 10, 0),
                List.of(
                        new FlinkObservation.Source(
                                "v1",
                                "a",
                                2,
                                KafkaReader.KAFKA_SOURCE,
                                Set.of("device-events"),
                                100.0,
                                2,
                                TestUtils.partitions("device-events", 0, 1)),
                        new FlinkObservation.Source(
                                "v2",
                                "b",
                                2,
                                KafkaReader.KAFKA_SOURCE,
                                Set.of("device-events"),
                                null,
                                2,
                                TestUtils.partitions("device-events", 2, 3))),
                Set.of());
        assertThat(job.sourceRecordsOutPerSecond()).isNull();
        assertThat(job.assignedSplits()).isEqualTo(4);
        assertThat(job.partitionsRead()).isEqualTo(all);
    }

    @Test
    void lowTrafficDoesNotTriggerDuplicateRatio() {
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW, 10, 0), source(1.0))),
                kafka(1_000_030, 0L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 0L)));
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).findings()).isEmpty();
    }

    @Test
    void reportsCheckpointingDisabledSeenAtRuntimeOnlyOnce() {
        Observation o = observation(flink(job(JobStatus.RUNNING, 0, Checkpoints.disabled(), null)), null, List.of());
        HealthEvaluator ev = new HealthEvaluator(conf, CLOCK);
        assertThat(ev.evaluateRuntimeOnly(o).has(FindingCode.CHECKPOINTING_DISABLED))
                .isTrue();
        Map<String, String> c = TestUtils.goodConf();
        c.put("lineflow.checkpointing.enabled", "false");
        Observation both =
                new Observation(NOW, TestUtils.spec(c), TestUtils.runningStatus(), o.flink(), null, List.of());
        assertThat(ev.evaluate(both).findings().stream().filter(f -> f.code() == FindingCode.CHECKPOINTING_DISABLED))
                .hasSize(1);
    }

    @Test
    void kafkaUnreachableIsAFinding() {
        Observation o = observation(
                healthyFlink(),
                KafkaObservation.failed("kafka:9092", List.of("device-events"), "lineflow", NOW, "timed out"),
                List.of());
        assertThat(OBSERVERS
                        .evaluate(o, conf, CLOCK)
                        .find(FindingCode.OBSERVATION_FAILED)
                        .get()
                        .evidence())
                .containsEntry("source", "kafka");
    }

    @Test
    void aRunningJobWithoutARecognisedKafkaReaderIsNotJudgedAndSaysSo() {
        // What the Beam job of the incident looked like to the check before it knew Beam's reader.
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), null)),
                kafka(1_006_000, 0L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 0L)));
        HealthResult r = DUPLICATES.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATES_NOT_JUDGED);
        assertThat(r.findings().get(0).severity()).isEqualTo(Severity.INFO);
        assertThat(r.findings().get(0).message())
                .contains(
                        "no Kafka reader was recognised",
                        "lineflow.io/kafka-topic",
                        KafkaReader.BEAM_KAFKA_IO.metric());
        assertThat(DuplicateConsumptionCheck.coverage(o, conf).orElseThrow().judged())
                .isFalse();
    }

    @Test
    void aJobJustStartedIsNotYetReportedAsNotJudged() {
        // Its readers register their metrics with their first splits or records: not yet a blind spot.
        FlinkObservation.Job justStarted = new FlinkObservation.Job(
                "abc",
                "lineflow",
                JobStatus.RUNNING,
                NOW.minusSeconds(30),
                0L,
                checkpoints(NOW.minusSeconds(10), 10, 0),
                List.of(),
                Set.of());
        Observation o = observation(flink(justStarted), kafka(1_006_000, 0L, Duration.ofDays(7)), List.of());
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).findings()).isEmpty();
        assertThat(DuplicateConsumptionCheck.coverage(o, conf)).isEmpty();
    }

    @Test
    void aJobThatIsNotRunningIsLeftToTheJobStateCheck() {
        Observation o = observation(
                flink(job(JobStatus.RESTARTING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), null)),
                kafka(1_006_000, 0L, Duration.ofDays(7)),
                List.of());
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).findings()).isEmpty();
        assertThat(DuplicateConsumptionCheck.coverage(o, conf)).isEmpty();
    }

    @Test
    void readersWithoutKafkaObservedAreNotJudgedButTheirAssignmentsAreStillCounted() {
        FlinkObservation.Job job = job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), source(100));
        HealthResult r = DUPLICATES.evaluate(observation(flink(job), null, List.of()), conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATES_NOT_JUDGED);
        assertThat(r.findings().get(0).message())
                .contains("Kafka is not observed", "Only the readers' partition assignments were counted");

        FlinkObservation.Job doubled =
                job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), TestUtils.doubledSource());
        assertThat(DUPLICATES
                        .evaluate(observation(flink(doubled), null, List.of()), conf, CLOCK)
                        .codes())
                .as("a partition held twice needs no Kafka to be seen")
                .containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
    }

    @Test
    void aJudgedJobStillWarmingUpHasNoFinding() {
        // Readers and Kafka seen, but no sample old enough for a rate yet: judged, not reported.
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), source(100))),
                kafka(1_006_000, 0L, Duration.ofDays(7)),
                List.of());
        assertThat(DUPLICATES.evaluate(o, conf, CLOCK).findings()).isEmpty();
        assertThat(DuplicateConsumptionCheck.coverage(o, conf).orElseThrow().judged())
                .isTrue();
    }

    @Test
    void beamReadersAreJudgedByRateAloneAndTheFindingNamesWhatWasRecognised() {
        // Both readers of a doubled partition report under one name: the metrics show 4 of 4.
        FlinkObservation.Source beam = new FlinkObservation.Source(
                "v1",
                "Source: ReadFromKafka/KafkaIO.Read",
                2,
                KafkaReader.BEAM_KAFKA_IO,
                Set.of("device-events"),
                199.0,
                4,
                TestUtils.partitions("device-events", 0, 1, 2, 3));
        Observation o = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), beam)),
                kafka(1_006_000, 0L, Duration.ofDays(7)),
                List.of(sample(Duration.ofSeconds(60), 0L, 0L, 1_000_000L, 0L)));
        HealthResult r = DUPLICATES.evaluate(o, conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(r.findings().get(0).message())
                .contains("Beam KafkaIO (Flink runner)", "KafkaIOReader_rawSize/<topic>-<p>", "ratio 1.99");
        assertThat(r.findings().get(0).evidence()).containsEntry("readers", "BEAM_KAFKA_IO");
        assertThat(DuplicateConsumptionCheck.remediable(r))
                .as("the incident's signature: a restart ends it")
                .isTrue();
    }

    @Test
    void theUnitJudgedIsWhatTheReadersReadTogetherUnlessNamed() {
        FlinkObservation.Source a = readerOf("v1", KafkaReader.KAFKA_SOURCE, "orders");
        FlinkObservation.Source b = readerOf("v2", KafkaReader.FLINK_KAFKA_CONSUMER, "returns");
        FlinkObservation.Source both = readerOf("v3", KafkaReader.KAFKA_SOURCE, "orders", "refunds");
        FlinkObservation.Job one = jobReading(a);
        FlinkObservation.Job two = jobReading(a, b);
        FlinkObservation.Job none = jobReading();
        FlinkObservation.Job linked = jobReading(a, b, both);
        assertThat(one.unitToJudge(null, "device-events")).contains(Set.of("orders"));
        assertThat(two.unitToJudge(null, "returns")).contains(Set.of("returns"));
        assertThat(two.unitToJudge(null, "device-events"))
                .as("several, none configured")
                .isEmpty();
        assertThat(two.unitToJudge("device-events", "returns"))
                .as("a topic named that no recognised reader reads")
                .contains(Set.of("device-events"));
        assertThat(none.unitToJudge(null, "device-events")).contains(Set.of("device-events"));
        assertThat(linked.units())
                .as("a reader of orders and refunds links them: its output is of both")
                .containsExactlyInAnyOrder(Set.of("orders", "refunds"), Set.of("returns"));
        assertThat(linked.unitToJudge("refunds", null)).contains(Set.of("orders", "refunds"));

        FlinkObservation.Job narrowed = linked.reading(Set.of("orders", "refunds"));
        assertThat(narrowed.sources()).containsExactly(a, both);
        assertThat(narrowed.otherTopics()).containsExactly("returns");
        assertThat(narrowed.topicsRead()).containsExactly("orders", "refunds", "returns");
        HealthResult r = DUPLICATES.evaluate(
                observation(flink(two.reading(Set.of("device-events"))), null, List.of()), conf, CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.DUPLICATES_NOT_JUDGED);
        assertThat(r.findings().get(0).message()).contains("read orders, returns", "lineflow.io/kafka-topic");
    }

    @Test
    void aReaderOfTwoTopicsIsComparedWithBothAndARateAloneRollsOnlyAReaderThatCannotShowItsAssignments() {
        // One KafkaSource on orders and refunds, 50 records/s each: it emits 100/s.
        Set<TopicPartition> read = new HashSet<>(TestUtils.partitions("orders", 0, 1));
        read.addAll(TestUtils.partitions("refunds", 0, 1));
        FlinkObservation.Source reader = new FlinkObservation.Source(
                "v1", "Source: kafka-source", 2, KafkaReader.KAFKA_SOURCE, Set.of("orders", "refunds"), 100.0, 4, read);
        Observation both = observation(
                flink(job(JobStatus.RUNNING, 0, checkpoints(NOW.minusSeconds(10), 10, 0), reader)),
                topics(List.of("orders", "refunds"), 1_006_000),
                List.of(new Sample(
                        NOW.minusSeconds(60), 0L, 0L, List.of("orders", "refunds"), 1_000_000L, 1_000_000L, 0L)));
        assertThat(DUPLICATES.evaluate(both, conf, CLOCK).findings())
                .as("100/s emitted, 100/s received on the two topics")
                .isEmpty();
        // Negative control: the same reader compared with one of its topics, as the check did
        // before it judged what a reader reads together.
        Observation oneTopic = observation(
                both.flink(),
                topics(List.of("orders"), 1_003_000),
                List.of(new Sample(NOW.minusSeconds(60), 0L, 0L, List.of("orders"), 1_000_000L, 1_000_000L, 0L)));
        HealthResult wrong = DUPLICATES.evaluate(oneTopic, conf, CLOCK);
        assertThat(wrong.codes()).containsExactly(FindingCode.DUPLICATE_CONSUMPTION);
        assertThat(DuplicateConsumptionCheck.remediable(wrong))
                .as("a KafkaSource holding each partition once: the rate alone never rolls it")
                .isFalse();
        // A base sample of other topics is no base.
        Observation otherBase = observation(
                both.flink(),
                topics(List.of("orders", "refunds"), 1_006_000),
                List.of(new Sample(NOW.minusSeconds(60), 0L, 0L, List.of("orders"), 1_000_000L, 1_000_000L, 0L)));
        assertThat(DuplicateConsumptionCheck.rates(otherBase, conf)).isEmpty();
    }

    private static KafkaObservation topics(List<String> topics, long endOffsetSum) {
        return KafkaObservation.builder("kafka:9092", topics, "lineflow", NOW)
                .partitions(2 * topics.size())
                .endOffsetSum(endOffsetSum)
                .committedOffsetSum(endOffsetSum)
                .lag(0L)
                .build();
    }

    private static FlinkObservation.Source readerOf(String vertex, KafkaReader reader, String... topics) {
        return new FlinkObservation.Source(
                vertex, vertex, 2, reader, Set.of(topics), 10.0, 2, TestUtils.partitions(topics[0], 0, 1));
    }

    private static FlinkObservation.Job jobReading(FlinkObservation.Source... sources) {
        return new FlinkObservation.Job(
                "j", "n", JobStatus.RUNNING, NOW.minusSeconds(3600), 0L, null, List.of(sources), Set.of());
    }
}
