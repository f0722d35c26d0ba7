package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.flinkrest.JobDetails;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Each fault of the local drill struck on a fake cluster that records what was done to it. */
class LocalBackendTest {
    private static final Path JOB_JAR = Path.of("job.jar");
    private static final FlinkLine LINE = new FlinkLine("1.20", List.of("flink-1.20.jar"), JOB_JAR);
    private static final FlinkLine NEXT_LINE = new FlinkLine("2.2", List.of("flink-2.2.jar"), Path.of("job-2.2.jar"));
    private static final Path UPGRADE_JAR = Path.of("upgrade.jar");
    private static final List<String> ARGS = List.of("--lineflow.kafka.topic", "device-events");

    @TempDir
    Path dir;

    /** A cluster that keeps a line per action and hands out job ids job-1, job-2, … */
    private final class RecordingCluster implements LocalBackend.Cluster {
        final List<String> actions = new ArrayList<>();
        private int jobs;

        @Override
        public Path dir() {
            return dir;
        }

        @Override
        public String killTaskManager() {
            actions.add("kill -9 taskmanager");
            return "taskmanager-1";
        }

        @Override
        public void startTaskManager() {
            actions.add("start taskmanager");
        }

        @Override
        public String killLeadingJobManager() {
            actions.add("kill -9 leading jobmanager");
            return "jobmanager-1";
        }

        @Override
        public void startJobManager() {
            actions.add("start jobmanager");
        }

        @Override
        public void replaceFlinkWithFreshCluster(FlinkLine line) {
            actions.add("fresh cluster of Flink " + line.name());
        }

        @Override
        public String submit(Path jar, List<String> args, int parallelism, String restoreFrom) {
            assertThat(args).isEqualTo(ARGS);
            String id = "job-" + ++jobs;
            actions.add("submit " + jar + " p" + parallelism + " from " + restoreFrom + " as " + id);
            return id;
        }

        @Override
        public String stopWithSavepoint(String jobId) {
            actions.add("stop " + jobId + " with savepoint");
            return "file:/savepoints/sp-1";
        }

        @Override
        public Optional<JobDetails> job(String jobId) {
            return Optional.empty();
        }

        @Override
        public TableCheck.Database database() {
            throw new UnsupportedOperationException("no table in this test");
        }

        @Override
        public void stopPostgres() {
            actions.add("stop postgres");
        }

        @Override
        public void startPostgres() {
            actions.add("start postgres");
        }

        @Override
        public void restartKafka() {
            actions.add("restart kafka");
        }

        @Override
        public void stopS3() {
            actions.add("stop s3");
        }

        @Override
        public void startS3() {
            actions.add("start s3");
        }

        @Override
        public String killPostgres() {
            actions.add("kill -9 postgres");
            return "postgres";
        }

        @Override
        public String killKafka() {
            actions.add("kill -9 kafka");
            return "kafka";
        }

        @Override
        public void startKafka() {
            actions.add("start kafka");
        }

        @Override
        public String cut(LocalBackend.Link link) {
            actions.add("cut " + link);
            return link.name();
        }

        @Override
        public void heal() {
            actions.add("heal");
        }
    }

    private final RecordingCluster cluster = new RecordingCluster();
    private final List<String> log = new ArrayList<>();

    /** The job submitted (job-1), then {@code fault} struck; returns what the cluster saw after the submission. */
    private List<String> strike(Fault fault) throws Exception {
        LocalBackend backend = backend(cluster, NEXT_LINE);
        assertThat(backend.submit()).isEqualTo("job-1");
        assertThat(backend.strike(fault))
                .as("no local strike waits for the recovery")
                .isNull();
        return cluster.actions.subList(1, cluster.actions.size());
    }

    @Test
    void tmKillReplacesTheKilledTaskManager() throws Exception {
        assertThat(strike(Fault.TM_KILL)).containsExactly("kill -9 taskmanager", "start taskmanager");
        assertThat(log).containsExactly("  kill -9 taskmanager-1; starting a replacement");
    }

    @Test
    void jmFailoverKillsTheLeaderAndStartsANewStandby() throws Exception {
        assertThat(strike(Fault.JM_FAILOVER)).containsExactly("kill -9 leading jobmanager", "start jobmanager");
    }

    @Test
    void fullRestartRestoresTheNewestCompletedCheckpointOnAFreshCluster() throws Exception {
        completedCheckpoint("job-1", 2);
        Path newest = completedCheckpoint("job-1", 10);
        Files.createDirectories(newest.resolveSibling("chk-11")); // still being written: no metadata yet

        assertThat(strike(Fault.FULL_RESTART))
                .containsExactly(
                        "fresh cluster of Flink 1.20", "submit job.jar p2 from " + newest.toUri() + " as job-2");
    }

    @Test
    void upgradeRestoresTheSavepointWithTheUpgradeJarAtParallelismFour() throws Exception {
        assertThat(strike(Fault.UPGRADE))
                .containsExactly(
                        "stop job-1 with savepoint", "submit upgrade.jar p4 from file:/savepoints/sp-1 as job-2");
    }

    @Test
    void majorUpgradeRestoresThisLinesSavepointOnTheNextLinesFlinkWithItsJar() throws Exception {
        assertThat(strike(Fault.MAJOR_UPGRADE))
                .containsExactly(
                        "stop job-1 with savepoint",
                        "fresh cluster of Flink 2.2",
                        "submit job-2.2.jar p2 from file:/savepoints/sp-1 as job-2");
        assertThat(log)
                .containsExactly(
                        "  stopped with a savepoint on Flink 1.20; Flink 2.2 in its place, job job-2 restored from it");
    }

    /** The negative control: the same stop and the same new cluster, but nothing restored. */
    @Test
    void majorUpgradeWithTheSavepointDroppedSubmitsTheNextLinesJobAfresh() throws Exception {
        LocalBackend backend = backend(cluster, NEXT_LINE, true);
        backend.submit();

        backend.strike(Fault.MAJOR_UPGRADE);

        assertThat(cluster.actions)
                .containsExactly(
                        "submit job.jar p2 from null as job-1",
                        "stop job-1 with savepoint",
                        "fresh cluster of Flink 2.2",
                        "submit job-2.2.jar p2 from null as job-2");
        assertThat(log)
                .containsExactly("  stopped with a savepoint on Flink 1.20; Flink 2.2 in its place, job job-2"
                        + " submitted without it (negative control)");
    }

    @Test
    void majorRollbackWaitsForTheNextLinesCheckpointThenRestoresTheKeptSavepointOnThisLine() throws Exception {
        completedCheckpoint("job-2", 3);

        assertThat(strike(Fault.MAJOR_ROLLBACK))
                .containsExactly(
                        "stop job-1 with savepoint",
                        "fresh cluster of Flink 2.2",
                        "submit job-2.2.jar p2 from file:/savepoints/sp-1 as job-2",
                        "fresh cluster of Flink 1.20",
                        "submit job.jar p2 from file:/savepoints/sp-1 as job-3");
    }

    /** After a major upgrade a full restart restores on the line the cluster runs now. */
    @Test
    void aFullRestartAfterTheMajorUpgradeStaysOnTheNextLine() throws Exception {
        LocalBackend backend = backend(cluster, NEXT_LINE);
        backend.submit();
        backend.strike(Fault.MAJOR_UPGRADE);
        Path chk = completedCheckpoint("job-2", 1);

        backend.strike(Fault.FULL_RESTART);

        assertThat(cluster.actions.subList(cluster.actions.size() - 2, cluster.actions.size()))
                .containsExactly(
                        "fresh cluster of Flink 2.2", "submit job-2.2.jar p2 from " + chk.toUri() + " as job-3");
    }

    @Test
    void withoutTheNextLineTheMajorUpgradeSaysWhereItIsBuilt() throws Exception {
        LocalBackend backend = backend(cluster, null);
        backend.submit();

        assertThatThrownBy(() -> backend.strike(Fault.MAJOR_UPGRADE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the next Flink line after 1.20 is not built")
                .hasMessageContaining("next-line-build");
        assertThat(cluster.actions).containsExactly("submit job.jar p2 from null as job-1");
    }

    /** A backend on {@code cluster} that starts on Flink 1.20 and goes to {@code next} (none if null). */
    private LocalBackend backend(LocalBackend.Cluster on, FlinkLine next) {
        return backend(on, next, false);
    }

    /** As {@link #backend(LocalBackend.Cluster, FlinkLine)}, the major upgrade's savepoint dropped if asked. */
    private LocalBackend backend(LocalBackend.Cluster on, FlinkLine next, boolean savepointDropped) {
        return new LocalBackend(on, LINE, next, UPGRADE_JAR, ARGS, Duration.ofMillis(10), savepointDropped, log::add);
    }

    /** A retained checkpoint {@code chk-n} of {@code job}, metadata written. */
    private Path completedCheckpoint(String job, int n) throws IOException {
        Path chk = dir.resolve("checkpoints").resolve(job).resolve("chk-" + n);
        Files.createDirectories(chk);
        Files.writeString(chk.resolve("_metadata"), "");
        return chk;
    }

    /** A soak strikes both: the full restart after an upgrade is the same job, at parallelism 4. */
    @Test
    void aFullRestartAfterTheUpgradeKeepsTheUpgradesParallelism() throws Exception {
        LocalBackend backend = backend(cluster, NEXT_LINE);
        backend.submit();
        backend.strike(Fault.UPGRADE);
        Path chk = completedCheckpoint("job-2", 1);

        backend.strike(Fault.FULL_RESTART);

        assertThat(cluster.actions.get(cluster.actions.size() - 1))
                .isEqualTo("submit job.jar p4 from " + chk.toUri() + " as job-3");
    }

    @Test
    void dbOutageStopsPostgresThenStartsItAgain() throws Exception {
        assertThat(strike(Fault.DB_OUTAGE)).containsExactly("stop postgres", "start postgres");
    }

    @Test
    void kafkaRestartRestartsTheBroker() throws Exception {
        assertThat(strike(Fault.KAFKA_RESTART)).containsExactly("restart kafka");
    }

    @Test
    void pgKillKillsPostgresThenStartsItOnTheSameData() throws Exception {
        assertThat(strike(Fault.PG_KILL)).containsExactly("kill -9 postgres", "start postgres");
    }

    @Test
    void kafkaKillKillsTheBrokerThenStartsANewOne() throws Exception {
        assertThat(strike(Fault.KAFKA_KILL)).containsExactly("kill -9 kafka", "start kafka");
    }

    @Test
    void partitionDbCutsTheTaskManagersFromPostgresThenHeals() throws Exception {
        assertThat(strike(Fault.PARTITION_DB)).containsExactly("cut DB", "heal");
    }

    @Test
    void partitionKafkaCutsTheTaskManagersFromTheBrokerThenHeals() throws Exception {
        assertThat(strike(Fault.PARTITION_KAFKA)).containsExactly("cut KAFKA", "heal");
    }

    @Test
    void partitionJmCutsATaskManagerFromTheJobManagersThenHeals() throws Exception {
        assertThat(strike(Fault.PARTITION_JM)).containsExactly("cut JM", "heal");
    }

    @Test
    void theDrillsAllLeavesTheHardFaultsOut() {
        assertThat(Fault.drillDefaults(Backend.Kind.LOCAL))
                .containsExactly(
                        Fault.TM_KILL,
                        Fault.JM_FAILOVER,
                        Fault.FULL_RESTART,
                        Fault.DB_OUTAGE,
                        Fault.KAFKA_RESTART,
                        Fault.UPGRADE);
    }

    @Test
    void everyLocalFaultIsStruckAndEveryOtherRefused() throws Exception {
        for (Fault fault : Fault.values()) {
            LocalBackend backend = backend(new RecordingCluster(), NEXT_LINE);
            backend.submit();
            if (fault.offeredOn(Backend.Kind.LOCAL)) {
                if (fault == Fault.FULL_RESTART) {
                    completedCheckpoint("job-1", 1);
                }
                if (fault == Fault.MAJOR_ROLLBACK) {
                    completedCheckpoint("job-2", 1);
                }
                backend.strike(fault);
            } else {
                assertThatThrownBy(() -> backend.strike(fault))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(fault.id);
            }
        }
    }
}
