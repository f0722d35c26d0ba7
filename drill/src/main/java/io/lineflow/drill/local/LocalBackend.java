package io.lineflow.drill.local;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.Pause;
import io.lineflow.drill.core.Services;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.flinkrest.JobDetails;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The local drill's backend: lineflow's job on a {@link LocalCluster}, faults struck on the
 * cluster's processes and through Flink's REST API, as a user's tooling would.
 */
final class LocalBackend implements Backend {
    /** What the backend does to the cluster: {@link LocalCluster}, or a fake in a test. */
    interface Cluster extends Services {
        /** The cluster's folder: checkpoints and savepoints are under it. */
        Path dir();

        /** kill -9 of a live TaskManager; returns the process, for the log. */
        String killTaskManager();

        void startTaskManager();

        /** kill -9 of the leading JobManager; returns the process, for the log. */
        String killLeadingJobManager();

        void startJobManager();

        /**
         * Every Flink process (and ZooKeeper) killed; a new cluster of {@code line}'s Flink that
         * recovers nothing itself.
         */
        void replaceFlinkWithFreshCluster(FlinkLine line);

        /** Uploads {@code jar} and runs lineflow's job from it; returns the job's id. */
        String submit(Path jar, List<String> args, int parallelism, String restoreFrom) throws IOException;

        /** Stops the job with a savepoint; returns the savepoint's location. */
        String stopWithSavepoint(String jobId) throws IOException;

        /** The job as the cluster reports it; empty while it cannot tell (restarting, failing over). */
        Optional<JobDetails> job(String jobId);

        TableCheck.Database database();

        /** kill -9 of PostgreSQL while a sink batch is in flight; returns what was killed, for the log. */
        String killPostgres() throws Exception;

        /** kill -9 of the Kafka broker; returns it, for the log. */
        String killKafka();

        /** A broker on the data and port of the one before. */
        void startKafka();

        /** Starts dropping the packets of {@code link}; returns what is cut off, for the log. */
        String cut(Link link);

        /** Every packet flows again. */
        void heal();
    }

    /** What a partition cuts off from what. */
    enum Link {
        /** The TaskManagers from PostgreSQL. */
        DB,
        /** The TaskManagers from the Kafka broker. */
        KAFKA,
        /** One TaskManager running tasks from the JobManagers. */
        JM
    }

    /** How long the rollback waits for the next line's first completed checkpoint. */
    private static final Duration CHECKPOINT_ON_NEXT_LINE = Duration.ofMinutes(2);

    private final Cluster cluster;
    /** This build's Flink line and its job jar. */
    private final FlinkLine line;
    /** The line a major upgrade goes to; null when it is not built (or this is the newest). */
    private final FlinkLine nextLine;

    private final Path upgradeJar;
    private final List<String> args;
    private final Duration outage;
    /** A negative control: the major upgrade submits the next line's job without its savepoint. */
    private final boolean savepointDropped;

    private final Consumer<String> log;
    /** The job the drill watches: a full restart and an upgrade replace it. */
    private String jobId;
    /** The line the cluster runs now: the next one after a major upgrade. */
    private FlinkLine running;
    /** The job's parallelism now: 2 from the start, 4 after an upgrade; a full restart keeps it. */
    private int parallelism = 2;

    /**
     * @param line the Flink line the cluster starts on, with lineflow's jar for it
     * @param nextLine where {@link Fault#MAJOR_UPGRADE} goes; null if not built
     * @param upgradeJar the jar {@link Fault#UPGRADE} restores the savepoint with
     * @param outage how long {@link Fault#DB_OUTAGE} keeps PostgreSQL down, and a partition lasts
     *     (longer than the heartbeat timeout, so that both sides notice)
     * @param savepointDropped {@link Fault#MAJOR_UPGRADE} stops with a savepoint but submits the
     *     next line's job without it (a negative control: it starts from the group's committed
     *     offsets with empty windows)
     */
    LocalBackend(
            Cluster cluster,
            FlinkLine line,
            FlinkLine nextLine,
            Path upgradeJar,
            List<String> args,
            Duration outage,
            boolean savepointDropped,
            Consumer<String> log) {
        this.cluster = cluster;
        this.line = line;
        this.nextLine = nextLine;
        this.running = line;
        this.upgradeJar = upgradeJar;
        this.args = args;
        this.outage = outage;
        this.savepointDropped = savepointDropped;
        this.log = log;
    }

    /** Submits the job at parallelism 2; returns its id. */
    String submit() throws IOException {
        jobId = cluster.submit(line.jobJar(), args, 2, null);
        return jobId;
    }

    String jobId() {
        return jobId;
    }

    @Override
    public RunState job() {
        return cluster.job(jobId)
                .filter(JobDetails::running)
                .map(j -> new RunState(true, j.runningSince()))
                .orElse(RunState.DOWN);
    }

    @Override
    public TableCheck.Database database() {
        return cluster.database();
    }

    @Override
    public Long strike(Fault fault) throws Exception {
        return switch (fault) {
            case TM_KILL -> {
                log.accept("  kill -9 " + cluster.killTaskManager() + "; starting a replacement");
                cluster.startTaskManager();
                yield null;
            }
            case JM_FAILOVER -> {
                log.accept("  kill -9 leading " + cluster.killLeadingJobManager() + "; the standby takes over");
                cluster.startJobManager(); // the replacement pod, now the standby
                yield null;
            }
            case FULL_RESTART -> {
                String oldJob = jobId;
                cluster.replaceFlinkWithFreshCluster(running);
                Path checkpoint =
                        latestCheckpoint(cluster.dir().resolve("checkpoints").resolve(oldJob));
                // As a redeploy of the same spec would: at the parallelism the job ran with.
                jobId = cluster.submit(
                        running.jobJar(), args, parallelism, checkpoint.toUri().toString());
                log.accept("  fresh cluster; job " + jobId + " restored from " + checkpoint.getFileName());
                yield null;
            }
            case DB_OUTAGE -> {
                cluster.dbOutage(outage, log);
                yield null;
            }
            case KAFKA_RESTART -> {
                cluster.kafkaRestart(log);
                yield null;
            }
            case UPGRADE -> {
                String savepoint = cluster.stopWithSavepoint(jobId);
                parallelism = 4;
                jobId = cluster.submit(upgradeJar, args, parallelism, savepoint);
                log.accept("  stopped with savepoint; job " + jobId + " restored from it at parallelism 4");
                yield null;
            }
            case MAJOR_UPGRADE -> {
                majorUpgrade();
                yield null;
            }
            case MAJOR_ROLLBACK -> {
                String kept = majorUpgrade();
                Path checkpoints = cluster.dir().resolve("checkpoints").resolve(jobId);
                if (!Await.until(CHECKPOINT_ON_NEXT_LINE, Duration.ofMillis(250), () -> hasCheckpoint(checkpoints))) {
                    throw new IllegalStateException("Flink " + running.name() + "'s job " + jobId
                            + " completed no checkpoint within " + CHECKPOINT_ON_NEXT_LINE.toSeconds()
                            + " s: nothing of it to roll back");
                }
                restoreOn(line, kept);
                log.accept("  Flink " + nextLine.name() + " checkpointed; rolled back to Flink " + line.name()
                        + ", job " + jobId + " restored from the savepoint kept before the upgrade");
                yield null;
            }
            case PG_KILL -> {
                log.accept("  kill -9 " + cluster.killPostgres() + "; starting it again on the same data");
                cluster.startPostgres();
                log.accept("  PostgreSQL back after crash recovery");
                yield null;
            }
            case KAFKA_KILL -> {
                log.accept("  kill -9 " + cluster.killKafka() + "; a new broker on the same data");
                cluster.startKafka();
                log.accept("  Kafka broker back");
                yield null;
            }
            case PARTITION_DB, PARTITION_KAFKA, PARTITION_JM -> {
                Link link =
                        fault == Fault.PARTITION_DB ? Link.DB : fault == Fault.PARTITION_KAFKA ? Link.KAFKA : Link.JM;
                log.accept("  dropping every packet " + cluster.cut(link) + " for " + outage.toSeconds() + " s");
                try {
                    Pause.sleep(outage.toMillis());
                } finally {
                    cluster.heal();
                }
                log.accept("  packets flow again");
                yield null;
            }
            case OPERATOR_UPGRADE,
                    JM_POD_DELETE,
                    JM_LEADER_DELETE,
                    JM_LEADER_KILL,
                    JM_STANDBY_DELETE,
                    JM_KILL,
                    TM_POD_KILL,
                    OPERATOR_RESTART,
                    S3_OUTAGE,
                    SUSPEND_RESUME,
                    LAST_STATE_UPGRADE,
                    SAVEPOINT_UPGRADE,
                    NODE_RESTART -> throw new IllegalArgumentException(fault.id + " is not a fault of the local drill");
        };
    }

    /**
     * Stop-with-savepoint on this line, a fresh cluster of the next line, and lineflow's jar for it
     * restored from the savepoint (canonical, the REST API's default: the format meant to cross
     * versions, and RocksDB's own version changes with the line), or not restored when the
     * savepoint is dropped; returns the savepoint.
     */
    private String majorUpgrade() throws IOException {
        if (nextLine == null) {
            throw new IllegalStateException("the next Flink line after " + line.name()
                    + " is not built: the drill's build makes it (drill/pom.xml, next-line-build),"
                    + " and there is none after the newest line");
        }
        String savepoint = cluster.stopWithSavepoint(jobId);
        restoreOn(nextLine, savepointDropped ? null : savepoint);
        log.accept("  stopped with a savepoint on Flink " + line.name() + "; Flink " + nextLine.name()
                + " in its place, job " + jobId
                + (savepointDropped ? " submitted without it (negative control)" : " restored from it"));
        return savepoint;
    }

    /**
     * A fresh cluster of {@code target}'s Flink, and lineflow's jar for it restored from {@code
     * savepoint} (null: started afresh).
     */
    private void restoreOn(FlinkLine target, String savepoint) throws IOException {
        cluster.replaceFlinkWithFreshCluster(target);
        running = target;
        jobId = cluster.submit(target.jobJar(), args, parallelism, savepoint);
    }

    private static boolean hasCheckpoint(Path jobCheckpoints) {
        try {
            latestCheckpoint(jobCheckpoints);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The newest retained checkpoint of a job: {@code chk-N} with the highest N and metadata. */
    static Path latestCheckpoint(Path jobCheckpoints) throws IOException {
        try (Stream<Path> dirs = Files.list(jobCheckpoints)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(
                            p -> Long.parseLong(p.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new IOException("no completed checkpoint under " + jobCheckpoints));
        }
    }
}
