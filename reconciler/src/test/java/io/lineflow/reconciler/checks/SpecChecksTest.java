package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.TestUtils.goodConf;
import static io.lineflow.reconciler.TestUtils.goodSpec;
import static io.lineflow.reconciler.TestUtils.spec;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.model.SpecObservation.Mount;

import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/** Each spec check, healthy and unhealthy. */
class SpecChecksTest {

    private static SpecObservation with(String key, String value) {
        Map<String, String> c = goodConf();
        if (value == null) {
            c.remove(key);
        } else {
            c.put(key, value);
        }
        return spec(c);
    }

    private static SpecObservation withMounts(String dir, List<Mount> jm, List<Mount> tm) {
        Map<String, String> c = goodConf();
        c.put("state.checkpoints.dir", dir);
        return SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(c)
                .upgradeMode(UpgradeMode.LAST_STATE)
                .mounts(jm, tm)
                .build();
    }

    @Test
    void lineflowsOwnConfigurationPassesEverySpecCheck() {
        assertThat(SpecChecks.evaluate(goodSpec()).findings()).isEmpty();
    }

    @Test
    void anUnsetIntervalIsTheOperatorsForLastStateAndReportedAsSuch() {
        // FlinkConfigBuilder (1.10.0, 1.15.0) gives last-state deployments 5 min, whoever's job.
        for (SpecObservation s : List.of(
                with("execution.checkpointing.interval", null),
                SpecObservation.builder("flink", "other")
                        .flinkConfiguration(without("execution.checkpointing.interval"))
                        .upgradeMode(UpgradeMode.LAST_STATE)
                        .otherJob()
                        .build())) {
            HealthResult r = SpecChecks.checkpointingDisabled(s);
            assertThat(r.codes()).containsExactly(FindingCode.CHECKPOINT_INTERVAL_DEFAULTED);
            assertThat(r.worst()).contains(Severity.INFO);
            assertThat(r.findings().get(0).message()).contains("5 min", "retention");
        }
    }

    @Test
    void anUnsetIntervalOutsideLastStateIsTheJobsDefaultOnlyForLineflowsJob() {
        for (UpgradeMode mode : new UpgradeMode[] {UpgradeMode.STATELESS, UpgradeMode.SAVEPOINT, null}) {
            SpecObservation lineflow = SpecObservation.builder("flink", "lineflow")
                    .flinkConfiguration(without("execution.checkpointing.interval"))
                    .upgradeMode(mode)
                    .build();
            assertThat(SpecChecks.checkpointingDisabled(lineflow).findings())
                    .as("lineflow's job, %s", mode)
                    .isEmpty();
            SpecObservation other = SpecObservation.builder("flink", "other")
                    .flinkConfiguration(without("execution.checkpointing.interval"))
                    .upgradeMode(mode)
                    .otherJob()
                    .build();
            HealthResult r = SpecChecks.checkpointingDisabled(other);
            assertThat(r.codes()).as("another job, %s", mode).containsExactly(FindingCode.CHECKPOINTING_DISABLED);
            assertThat(r.worst()).contains(Severity.CRITICAL);
        }
    }

    @Test
    void anotherJobsArgumentsAndLineflowsSwitchAreNotFlinkConfiguration() {
        SpecObservation other = SpecObservation.builder("flink", "other")
                .flinkConfiguration(without("execution.checkpointing.interval"))
                .upgradeMode(UpgradeMode.SAVEPOINT)
                .jobArgs(List.of("--execution.checkpointing.interval", "60 s"))
                .otherJob()
                .build();
        assertThat(SpecChecks.checkpointingDisabled(other).codes()).containsExactly(FindingCode.CHECKPOINTING_DISABLED);
        SpecObservation otherWithSwitch = SpecObservation.builder("flink", "other")
                .flinkConfiguration(goodConf())
                .upgradeMode(UpgradeMode.LAST_STATE)
                .jobArgs(List.of("--lineflow.checkpointing.enabled", "false"))
                .otherJob()
                .build();
        assertThat(SpecChecks.checkpointingDisabled(otherWithSwitch).findings()).isEmpty();
    }

    private static Map<String, String> without(String key) {
        Map<String, String> c = goodConf();
        c.remove(key);
        return c;
    }

    @Test
    void reportsCheckpointingTurnedOffByTheJobsOwnSwitchInArgsOrConfiguration() {
        SpecObservation inArgs = SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(goodConf())
                .upgradeMode(UpgradeMode.LAST_STATE)
                .jobArgs(List.of("--lineflow.kafka.topic", "t", "--lineflow.checkpointing.enabled", "false"))
                .build();
        HealthResult r = SpecChecks.checkpointingDisabled(inArgs);
        assertThat(r.codes()).containsExactly(FindingCode.CHECKPOINTING_DISABLED);
        assertThat(r.worst()).contains(Severity.CRITICAL);
        assertThat(r.findings().get(0).message()).contains("spec.job.args");
        assertThat(SpecChecks.checkpointingDisabled(with("lineflow.checkpointing.enabled", "FALSE"))
                        .findings()
                        .get(0)
                        .message())
                .contains("spec.flinkConfiguration");
        assertThat(SpecChecks.checkpointingDisabled(with("lineflow.checkpointing.enabled", "true"))
                        .findings())
                .isEmpty();
    }

    @Test
    void anIntervalInTheJobsArgumentsOverridesTheConfiguration() {
        SpecObservation zeroInArgs = SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(goodConf())
                .upgradeMode(UpgradeMode.LAST_STATE)
                .jobArgs(List.of("--execution.checkpointing.interval", "0"))
                .build();
        assertThat(SpecChecks.checkpointingDisabled(zeroInArgs).worst()).contains(Severity.CRITICAL);
    }

    @Test
    void reportsCheckpointingDisabledWhenIntervalIsZeroOrGarbage() {
        assertThat(SpecChecks.checkpointingDisabled(with("execution.checkpointing.interval", "0"))
                        .has(FindingCode.CHECKPOINTING_DISABLED))
                .isTrue();
        assertThat(SpecChecks.checkpointingDisabled(with("execution.checkpointing.interval", "soon"))
                        .has(FindingCode.CHECKPOINTING_DISABLED))
                .isTrue();
        assertThat(SpecChecks.checkpointingDisabled(with("execution.checkpointing.interval", "30000"))
                        .findings())
                .isEmpty();
    }

    @Test
    void reportsHeapCheckpointStorageUnderNewAndOldKeys() {
        assertThat(SpecChecks.checkpointStorageNotDurable(with("execution.checkpointing.storage", "jobmanager"))
                        .has(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE))
                .isTrue();
        assertThat(SpecChecks.checkpointStorageNotDurable(with("state.checkpoint-storage", "jobmanager"))
                        .has(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE))
                .isTrue();
    }

    @Test
    void reportsMissingCheckpointDirAsHeapStorage() {
        HealthResult r = SpecChecks.checkpointStorageNotDurable(with("state.checkpoints.dir", null));
        assertThat(r.codes()).containsExactly(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE);
        assertThat(r.findings().get(0).message()).contains("JobManager heap");
    }

    @Test
    void acceptsNewCheckpointDirKeyOnObjectStorage() {
        Map<String, String> c = goodConf();
        c.remove("state.checkpoints.dir");
        c.put("execution.checkpointing.dir", "s3://bucket/cp");
        assertThat(SpecChecks.checkpointStorageNotDurable(spec(c)).findings()).isEmpty();
    }

    @Test
    void reportsFileCheckpointDirNotOnAnyVolume() {
        HealthResult r = SpecChecks.checkpointStorageNotDurable(
                withMounts("file:///flink-data/checkpoints", List.of(), List.of()));
        assertThat(r.has(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE)).isTrue();
        assertThat(r.findings().get(0).evidence()).containsEntry("value", "file:///flink-data/checkpoints");
    }

    @Test
    void reportsFileCheckpointDirOnEmptyDir() {
        List<Mount> emptyDir = List.of(new Mount("/flink-data", "state", "emptyDir", false));
        HealthResult r = SpecChecks.checkpointStorageNotDurable(
                withMounts("file:///flink-data/checkpoints", emptyDir, emptyDir));
        assertThat(r.has(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE)).isTrue();
        assertThat(r.findings().get(0).message()).contains("emptyDir");
    }

    @Test
    void acceptsFileCheckpointDirOnPersistentVolumeClaimInBothPods() {
        List<Mount> pvc = List.of(new Mount("/flink-data", "state", "persistentVolumeClaim", true));
        assertThat(SpecChecks.checkpointStorageNotDurable(withMounts("file:///flink-data/checkpoints", pvc, pvc))
                        .findings())
                .isEmpty();
        assertThat(SpecChecks.checkpointStorageNotDurable(withMounts("/flink-data/checkpoints", pvc, pvc))
                        .findings())
                .isEmpty();
    }

    @Test
    void reportsFileCheckpointDirMountedOnlyInJobManager() {
        List<Mount> pvc = List.of(new Mount("/flink-data", "state", "persistentVolumeClaim", true));
        HealthResult r =
                SpecChecks.checkpointStorageNotDurable(withMounts("file:///flink-data/checkpoints", pvc, List.of()));
        assertThat(r.has(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE)).isTrue();
        assertThat(r.findings().get(0).message()).contains("TaskManager");
    }

    @Test
    void doesNotTreatSiblingPathPrefixAsCovered() {
        List<Mount> pvc = List.of(new Mount("/flink", "state", "persistentVolumeClaim", true));
        assertThat(SpecChecks.checkpointStorageNotDurable(withMounts("file:///flink-data/cp", pvc, pvc))
                        .has(FindingCode.CHECKPOINT_STORAGE_NOT_DURABLE))
                .isTrue();
    }

    @Test
    void reportsCheckpointsNotRetainedWhenDeletedOnCancelOrUnsetOutsideTheOperatorsJobs() {
        // The operator sets RETAIN_ON_CANCELLATION for every job it deploys (FlinkConfigBuilder).
        assertThat(SpecChecks.checkpointsNotRetained(
                                with("execution.checkpointing.externalized-checkpoint-retention", null))
                        .findings())
                .isEmpty();
        assertThat(SpecChecks.checkpointsNotRetained(SpecObservation.builder("flink", "session")
                                .flinkConfiguration(
                                        without("execution.checkpointing.externalized-checkpoint-retention"))
                                .session()
                                .build())
                        .has(FindingCode.CHECKPOINTS_NOT_RETAINED))
                .isTrue();
        assertThat(SpecChecks.checkpointsNotRetained(with(
                                "execution.checkpointing.externalized-checkpoint-retention",
                                "NO_EXTERNALIZED_CHECKPOINTS"))
                        .has(FindingCode.CHECKPOINTS_NOT_RETAINED))
                .isTrue();
        assertThat(SpecChecks.checkpointsNotRetained(with(
                                "execution.checkpointing.externalized-checkpoint-retention", "DELETE_ON_CANCELLATION"))
                        .has(FindingCode.CHECKPOINTS_NOT_RETAINED))
                .isTrue();
        assertThat(SpecChecks.checkpointsNotRetained(goodSpec()).findings()).isEmpty();
    }

    @Test
    void reportsStatelessUpgradeModeIncludingTheDefault() {
        SpecObservation stateless = SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(goodConf())
                .upgradeMode(UpgradeMode.STATELESS)
                .build();
        SpecObservation unset = SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(goodConf())
                .build();
        SpecObservation session = SpecObservation.builder("flink", "session")
                .flinkConfiguration(goodConf())
                .session()
                .build();
        assertThat(SpecChecks.upgradeModeStateless(stateless).has(FindingCode.UPGRADE_MODE_STATELESS))
                .isTrue();
        assertThat(SpecChecks.upgradeModeStateless(unset).has(FindingCode.UPGRADE_MODE_STATELESS))
                .isTrue();
        assertThat(SpecChecks.upgradeModeStateless(stateless).findings().get(0).evidence())
                .containsEntry("value", "stateless");
        assertThat(SpecChecks.upgradeModeStateless(unset).findings().get(0).message())
                .startsWith("spec.job.upgradeMode is stateless (default): ");
        assertThat(SpecChecks.upgradeModeStateless(session).findings()).isEmpty();
        assertThat(SpecChecks.upgradeModeStateless(goodSpec()).findings()).isEmpty();
    }

    @Test
    void reportsHaDisabledWhenUnsetOrNone() {
        assertThat(SpecChecks.haDisabled(with("high-availability.type", null)).has(FindingCode.HA_DISABLED))
                .isTrue();
        assertThat(SpecChecks.haDisabled(with("high-availability.type", "NONE")).has(FindingCode.HA_DISABLED))
                .isTrue();
    }

    @Test
    void acceptsHaUnderTheOlderKey() {
        Map<String, String> c = goodConf();
        c.remove("high-availability.type");
        c.put("high-availability", "org.apache.flink.kubernetes.highavailability.KubernetesHaServicesFactory");
        assertThat(SpecChecks.haDisabled(spec(c)).findings()).isEmpty();
    }

    @Test
    void reportsTwoJobManagersWithoutHaWithTheReplicaCount() {
        Map<String, String> c = goodConf();
        c.remove("high-availability.type");
        SpecObservation s = SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(c)
                .upgradeMode(UpgradeMode.LAST_STATE)
                .jobManagerReplicas(2)
                .build();
        HealthResult r = SpecChecks.haDisabled(s);
        assertThat(r.has(FindingCode.HA_DISABLED)).isTrue();
        assertThat(r.findings().get(0).evidence()).containsEntry("jobManagerReplicas", 2);
        assertThat(r.findings().get(0).message()).contains("replicas is 2");
    }

    @Test
    void reportsHaWithoutStorageDir() {
        assertThat(SpecChecks.haDisabled(with("high-availability.storageDir", null))
                        .has(FindingCode.HA_DISABLED))
                .isTrue();
    }

    @Test
    void reportsMissingSavepointDirCriticalOnlyForSavepointUpgrades() {
        Map<String, String> c = goodConf();
        c.remove("state.savepoints.dir");
        SpecObservation lastState = spec(c);
        SpecObservation savepoint = SpecObservation.builder("flink", "lineflow")
                .flinkConfiguration(c)
                .upgradeMode(UpgradeMode.SAVEPOINT)
                .build();
        assertThat(SpecChecks.savepointDirMissing(lastState).worst()).contains(Severity.WARNING);
        assertThat(SpecChecks.savepointDirMissing(savepoint).worst()).contains(Severity.CRITICAL);
        assertThat(SpecChecks.savepointDirMissing(lastState).findings().get(0).evidence())
                .containsEntry("upgradeMode", "last-state");
        assertThat(SpecChecks.savepointDirMissing(goodSpec()).findings()).isEmpty();
    }

    @Test
    void acceptsNewSavepointDirKey() {
        Map<String, String> c = goodConf();
        c.remove("state.savepoints.dir");
        c.put("execution.checkpointing.savepoint-dir", "s3://b/sp");
        assertThat(SpecChecks.savepointDirMissing(spec(c)).findings()).isEmpty();
    }

    @Test
    void reportsRestartStrategyNoneUnderEitherKey() {
        assertThat(SpecChecks.restartStrategyNone(with("restart-strategy.type", "none"))
                        .has(FindingCode.RESTART_STRATEGY_NONE))
                .isTrue();
        Map<String, String> c = goodConf();
        c.remove("restart-strategy.type");
        c.put("restart-strategy", "disable");
        assertThat(SpecChecks.restartStrategyNone(spec(c)).has(FindingCode.RESTART_STRATEGY_NONE))
                .isTrue();
        assertThat(SpecChecks.restartStrategyNone(with("restart-strategy.type", "fixed-delay"))
                        .findings())
                .isEmpty();
    }
}
