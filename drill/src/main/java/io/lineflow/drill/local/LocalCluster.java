package io.lineflow.drill.local;

import io.lineflow.drill.core.TableCheck;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.testing.EmbeddedKafka;

import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real Flink cluster on this machine, every part its own process on loopback: the services
 * ({@link LocalServices}: ZooKeeper, a Kafka broker, PostgreSQL), two JobManagers with ZooKeeper HA
 * (a leader and a standby) and two TaskManagers ({@link FlinkProcesses}), all started from the
 * Maven classpath, and the network faults between them ({@link LoopbackPartitions}).
 * Alternatively Kubernetes HA against a real API server replaces ZooKeeper. Timeouts are short
 * (ZooKeeper session 8 s, heartbeat 2 s / 8 s) so a lost JobManager is replaced in about 15 s.
 */
final class LocalCluster implements LocalBackend.Cluster, AutoCloseable {
    private final Path dir;
    private final LocalServices services;
    private final FlinkProcesses flink;
    /** With Kubernetes HA: the kubeconfig of the Flink ServiceAccount; else null (ZooKeeper HA). */
    private final Path haKubeconfig;
    /** Set by {@link #enablePartitions()}. */
    private LoopbackPartitions partitions;

    /** A cluster with ZooKeeper HA. */
    LocalCluster(Path dir, List<String> classpath, List<String> flinkClasspath, Path drillClasses) {
        this(dir, classpath, flinkClasspath, drillClasses, null, null);
    }

    /**
     * A cluster with Kubernetes HA when {@code haKubeconfig} is given: leader election and job
     * metadata in ConfigMaps of {@code haNamespace} on a real API server, under the ServiceAccount
     * the kubeconfig authenticates as. The processes stay local; no kubelet is needed.
     */
    LocalCluster(
            Path dir,
            List<String> classpath,
            List<String> flinkClasspath,
            Path drillClasses,
            String haNamespace,
            Path haKubeconfig) {
        this.dir = dir;
        this.haKubeconfig = haKubeconfig;
        List<String> all = new ArrayList<>(classpath);
        all.add(0, drillClasses.toString());
        // The Flink processes get what a Flink distribution has, never the job's classes or
        // connectors: those come in the uploaded jar, as on a real cluster.
        String flinkOnly = String.join(":", flinkClasspath);
        this.services = new LocalServices(dir, String.join(":", all), flinkOnly);
        this.flink = new FlinkProcesses(
                dir,
                flinkOnly,
                generation -> haKubeconfig == null
                        ? Map.of(
                                "high-availability.type",
                                "zookeeper",
                                "high-availability.zookeeper.quorum",
                                services.zooKeeperQuorum(),
                                "high-availability.cluster-id",
                                "/drill-" + generation)
                        : Map.of(
                                "high-availability.type", "kubernetes",
                                "kubernetes.cluster-id", "drill-" + generation,
                                "kubernetes.namespace", haNamespace,
                                "kubernetes.config.file", haKubeconfig.toString(),
                                // Shorter than the defaults (15 s / 15 s / 5 s), like the ZooKeeper timeouts.
                                "high-availability.kubernetes.leader-election.lease-duration", "8 s",
                                "high-availability.kubernetes.leader-election.renew-deadline", "8 s",
                                "high-availability.kubernetes.leader-election.retry-period", "2 s"));
    }

    @Override
    public Path dir() {
        return dir;
    }

    String bootstrapServers() {
        return services.bootstrapServers();
    }

    /**
     * The job's arguments that every run on this cluster gives (the drill's and the soak's add
     * their own): its broker and {@code topic}, its database, checkpoints every {@code
     * checkpointInterval} into this cluster's directory, and a sink flushed every 200 ms.
     */
    List<String> jobArgs(String topic, Duration checkpointInterval) {
        return List.of(
                "--lineflow.kafka.bootstrap-servers",
                bootstrapServers(),
                "--lineflow.kafka.topic",
                topic,
                "--lineflow.jdbc.url",
                services.jdbcUrl(),
                "--lineflow.jdbc.user",
                "postgres",
                "--execution.checkpointing.interval",
                checkpointInterval.toMillis() + " ms",
                "--execution.checkpointing.dir",
                dir.resolve("checkpoints").toUri().toString(),
                "--lineflow.sink.batch-interval",
                "200 ms");
    }

    /** The server of the moment: an outage replaces it. */
    @Override
    public TableCheck.Database database() {
        return services.database();
    }

    /**
     * What a drill scenario or a soak runs on: the services, the topic, lineflow's schema in
     * PostgreSQL, then the Flink processes.
     */
    void start(String topic, int partitions) throws Exception {
        if (haKubeconfig == null) {
            services.startZooKeeper(flink.generation());
        }
        services.startKafka();
        services.startPostgres();
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000))) {
            EmbeddedKafka.createTopic(admin, topic, partitions);
        }
        Schema.migrate(JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", services.jdbcUrl(), "--lineflow.jdbc.user", "postgres"},
                Map.of(),
                new Configuration()));
        flink.start();
    }

    // ---------------------------------------------------------------- settings, before start

    /**
     * Lets {@link #cut} drop packets: the TaskManagers started from now on start in cgroups of
     * their own, which iptables tells apart (see {@link LoopbackPartitions}). Call before {@link
     * #start}.
     */
    void enablePartitions() {
        partitions = LoopbackPartitions.create();
        flink.partitionedBy(partitions);
    }

    /**
     * How long the JobManagers keep a job that has ended, its archived execution graph and (in the
     * REST API's metric store) its metrics: {@code jobstore.expiration-time}, an hour by default.
     * Call before {@link #start}.
     */
    void keepFinishedJobs(Duration kept) {
        flink.keepFinishedJobs(kept);
    }

    /**
     * Makes the JobManagers' REST server (Flink's shaded Netty, its default pooled allocator) pool
     * its heap buffers in one arena instead of two per core. An arena takes a 4 MiB chunk when a
     * thread bound to it first allocates, and keeps it for the JVM's life; with several, a request
     * that lands on a thread whose arena has none yet (the upgrade's jar upload, on a JobManager
     * that has served only small requests) is a 4 MiB step in the live heap whenever it comes. With
     * one, the first request takes the chunk and every later one reuses it. Call before {@link
     * #start}.
     */
    void poolRestBuffersInOneArena() {
        flink.poolRestBuffersInOneArena();
    }

    // ---------------------------------------------------------------- services and their faults

    @Override
    public void startKafka() {
        services.startKafka();
    }

    @Override
    public void restartKafka() {
        services.restartKafka();
    }

    @Override
    public String killKafka() {
        return services.killKafka();
    }

    @Override
    public void startPostgres() {
        services.startPostgres();
    }

    @Override
    public void stopPostgres() throws IOException {
        services.stopPostgres();
    }

    @Override
    public String killPostgres() throws Exception {
        return services.killPostgres();
    }

    /** None here: the local cluster's checkpoints go to a local directory ({@code s3-outage} is not offered). */
    @Override
    public void stopS3() {
        throw new UnsupportedOperationException("the local drill runs no S3 server");
    }

    @Override
    public void startS3() {
        throw new UnsupportedOperationException("the local drill runs no S3 server");
    }

    // ---------------------------------------------------------------- network faults

    @Override
    public String cut(LocalBackend.Link link) {
        if (partitions == null) {
            throw new IllegalStateException("this cluster was started without partitions (enablePartitions)");
        }
        List<String> tms = flink.liveTaskManagers();
        return switch (link) {
            case DB -> {
                partitions.dropFrom(tms, List.of(services.pgPort));
                yield "from " + tms + " to PostgreSQL (port " + services.pgPort + ")";
            }
            case KAFKA -> {
                partitions.dropFrom(tms, List.of(services.kafkaPort));
                yield "from " + tms + " to the broker (port " + services.kafkaPort + ")";
            }
            case JM -> {
                String tm = flink.busyTaskManager().orElse(tms.get(0));
                List<Integer> jms = flink.liveJobManagerRpcPorts();
                // Both ways: what the TaskManager sends to the JobManagers' RPC ports, and every
                // packet to or from its own RPC port (the JobManagers' connections to it).
                partitions.dropFrom(List.of(tm), jms);
                partitions.dropPort(flink.rpcPort(tm));
                yield "between " + tm + " (RPC port " + flink.rpcPort(tm) + ") and the JobManagers (RPC ports " + jms
                        + ")";
            }
        };
    }

    @Override
    public void heal() {
        partitions.heal();
    }

    // ---------------------------------------------------------------- Flink and its faults

    /** Every JobManager and TaskManager started so far, live or not. */
    List<FlinkProcesses.FlinkProcess> flinkProcesses() {
        return flink.processes();
    }

    /** A live JobManager's REST address, if one answers. */
    Optional<String> restAddress() {
        return flink.anyRest();
    }

    /**
     * A fresh cluster: every Flink process and ZooKeeper killed, and a new ZooKeeper and HA
     * cluster id, so nothing is recovered from HA — only what the caller restores explicitly.
     */
    @Override
    public void replaceFlinkWithFreshCluster(FlinkLine line) {
        flink.killAllAndForget();
        services.replaceZooKeeper(flink.generation());
        flink.runFrom(line.classpath());
        flink.start();
    }

    @Override
    public void startJobManager() {
        flink.startJobManager();
    }

    @Override
    public void startTaskManager() {
        flink.startTaskManager();
    }

    @Override
    public String killTaskManager() {
        return flink.killTaskManager();
    }

    @Override
    public String killLeadingJobManager() {
        return flink.killLeadingJobManager();
    }

    @Override
    public String submit(Path jar, List<String> args, int parallelism, String restoreFrom) throws IOException {
        return flink.submit(jar, args, parallelism, restoreFrom);
    }

    @Override
    public String stopWithSavepoint(String jobId) throws IOException {
        return flink.stopWithSavepoint(jobId);
    }

    @Override
    public Optional<JobDetails> job(String jobId) {
        return flink.job(jobId);
    }

    @Override
    public void close() {
        flink.close();
        services.close();
        if (partitions != null) {
            partitions.close();
        }
    }
}
