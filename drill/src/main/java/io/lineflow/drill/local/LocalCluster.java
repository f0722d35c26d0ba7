package io.lineflow.drill.local;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.TableCheck;
import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.job.LineflowJob;
import io.lineflow.job.config.JobConfig;
import io.lineflow.job.schema.Schema;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.EmbeddedPostgresServer;
import io.lineflow.testing.JdkOpens;
import io.lineflow.testing.KafkaBrokerMain;
import io.lineflow.testing.ManagedProcess;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.LeaderRetrievalUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A real Flink cluster on this machine, every part its own process on loopback: ZooKeeper, a
 * Kafka broker, PostgreSQL, two JobManagers with ZooKeeper HA (a leader and a standby) and two
 * TaskManagers, all started from the Maven classpath. Alternatively Kubernetes HA against a real
 * API server replaces ZooKeeper. Timeouts are short (ZooKeeper session 8 s,
 * heartbeat 2 s / 8 s) so a lost JobManager is replaced in about 15 s, not a minute.
 */
final class LocalCluster implements LocalBackend.Cluster, AutoCloseable {
    /** What Flink needs opened on JDK 17 (as Flink's own start scripts do): the project's one list. */
    static final List<String> JDK17_OPENS = JdkOpens.flags();

    /** The job's main class: the drill runs the jar a user would upload. */
    private static final String ENTRY_CLASS = LineflowJob.class.getName();

    /** Netty's {@code io.netty.allocator.numHeapArenas} as Flink's shading renames it: one heap arena. */
    static final String ONE_REST_ARENA = "-Dorg.apache.flink.shaded.netty4.io.netty.allocator.numHeapArenas=1";

    private final Path dir;
    private final String fullClasspath;
    private final String flinkClasspath;
    private final int zkPort = EmbeddedKafka.freePort();
    private final int kafkaPort = EmbeddedKafka.freePort();
    private final int pgPort = EmbeddedKafka.freePort();
    private final List<ManagedProcess> jobManagers = new ArrayList<>();
    private final List<String> jobManagerRest = new ArrayList<>();
    private final List<ManagedProcess> taskManagers = new ArrayList<>();
    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(5));
    private ManagedProcess zookeeper;
    private ManagedProcess kafka;
    private EmbeddedPostgresServer postgres;
    private int generation;
    /** Each Flink process's RPC port, by process name: a partition cuts a TaskManager off by them. */
    private final Map<String, Integer> rpcPorts = new LinkedHashMap<>();
    /** Set by {@link #enablePartitions()}: TaskManagers then start in cgroups of their own. */
    private LoopbackPartitions partitions;
    /** Set by {@link #keepFinishedJobs}: how long a JobManager keeps a job that has ended; Flink's hour when null. */
    private Duration finishedJobsKept;
    /** Set by {@link #poolRestBuffersInOneArena}: the JobManagers' REST server pools its buffers in one arena. */
    private boolean oneRestArena;

    /** With Kubernetes HA: the namespace and a kubeconfig for the Flink ServiceAccount; else null. */
    private final String haNamespace;

    private final Path haKubeconfig;

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
        this.haNamespace = haNamespace;
        this.haKubeconfig = haKubeconfig;
        List<String> all = new ArrayList<>(classpath);
        all.add(0, drillClasses.toString());
        this.fullClasspath = String.join(":", all);
        // The cluster gets what a Flink distribution has, never the job's classes or connectors:
        // those come in the uploaded jar, as on a real cluster.
        this.flinkClasspath = String.join(":", flinkClasspath);
    }

    @Override
    public Path dir() {
        return dir;
    }

    String bootstrapServers() {
        return "127.0.0.1:" + kafkaPort;
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
                jdbcUrl(),
                "--lineflow.jdbc.user",
                "postgres",
                "--execution.checkpointing.interval",
                checkpointInterval.toMillis() + " ms",
                "--state.checkpoints.dir",
                dir.resolve("checkpoints").toUri().toString(),
                "--lineflow.sink.batch-interval",
                "200 ms");
    }

    String jdbcUrl() {
        return postgres.jdbcUrl();
    }

    /** The server of the moment: an outage replaces it. */
    @Override
    public TableCheck.Database database() {
        return () -> postgres.connect();
    }

    // ---------------------------------------------------------------- services

    /**
     * What a drill scenario or a soak runs on: the services, the topic, lineflow's schema in
     * PostgreSQL, then the Flink processes.
     */
    void start(String topic, int partitions) throws Exception {
        startServices();
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000))) {
            EmbeddedKafka.createTopic(admin, topic, partitions);
        }
        Schema.migrate(JobConfig.merge(
                new String[] {"--lineflow.jdbc.url", jdbcUrl(), "--lineflow.jdbc.user", "postgres"},
                Map.of(),
                new Configuration()));
        startFlink();
    }

    void startServices() {
        if (haKubeconfig == null) {
            startZooKeeper();
        }
        startKafka();
        startPostgres();
    }

    private void startZooKeeper() {
        Path data = mkdirs(dir.resolve("zookeeper-" + generation));
        zookeeper = ManagedProcess.java(
                "zookeeper",
                List.of("-Xmx256m", "-Dzookeeper.admin.enableServer=false"),
                flinkClasspath,
                "org.apache.flink.shaded.zookeeper3.org.apache.zookeeper.server.ZooKeeperServerMain",
                List.of(String.valueOf(zkPort), data.toString()),
                dir.resolve("zookeeper.log"));
    }

    @Override
    public void startKafka() {
        kafka = ManagedProcess.java(
                "kafka",
                List.of("-Xmx512m", "-Djava.io.tmpdir=" + mkdirs(dir.resolve("tmp"))),
                fullClasspath,
                KafkaBrokerMain.class.getName(),
                List.of(dir.resolve("kafka").toString(), String.valueOf(kafkaPort)),
                dir.resolve("kafka.log"));
        kafka.awaitOutput(KafkaBrokerMain.READY, Duration.ofSeconds(90));
    }

    /** A broker restart: SIGTERM, then a new broker on the same data and port. */
    @Override
    public void restartKafka() {
        kafka.stop();
        startKafka();
    }

    /**
     * Starts PostgreSQL on the cluster's port and data directory. The directory is never cleaned
     * by the server itself (a server started with cleaning deletes its data when it stops, which
     * would turn an outage into data loss); each scenario starts in an empty folder instead.
     */
    @Override
    public void startPostgres() {
        // Durable commits, as a production server has them: pg-kill crashes it.
        postgres = EmbeddedPostgresServer.start(dir.resolve("postgres"), pgPort, false, true);
    }

    @Override
    public void stopPostgres() throws IOException {
        postgres.close();
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

    /**
     * Lets {@link #cut} drop packets: the TaskManagers started from now on start in cgroups of
     * their own, which iptables tells apart (see {@link LoopbackPartitions}). Call before {@link
     * #startFlink()}.
     */
    void enablePartitions() {
        partitions = LoopbackPartitions.create();
    }

    /**
     * How long the JobManagers keep a job that has ended, its archived execution graph and (in the
     * REST API's metric store) its metrics: {@code jobstore.expiration-time}, an hour by default.
     * Call before {@link #startFlink()}.
     */
    void keepFinishedJobs(Duration kept) {
        finishedJobsKept = kept;
    }

    /**
     * Makes the JobManagers' REST server (Flink's shaded Netty, its default pooled allocator) pool
     * its heap buffers in one arena instead of two per core. An arena takes a 4 MiB chunk when a
     * thread bound to it first allocates, and keeps it for the JVM's life; with several, a request
     * that lands on a thread whose arena has none yet (the upgrade's jar upload, on a JobManager
     * that has served only small requests) is a 4 MiB step in the live heap whenever it comes. With
     * one, the first request takes the chunk and every later one reuses it. Call before {@link
     * #startFlink()}.
     */
    void poolRestBuffersInOneArena() {
        oneRestArena = true;
    }

    @Override
    public String killPostgres() throws Exception {
        // Mid-batch: watch (for up to 10 s, over one connection, without pause) for one of the
        // sink's upserts to be running, and kill the server the moment one is.
        boolean inFlight = false;
        try (Connection c = postgres.connect();
                PreparedStatement st = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE state ="
                        + " 'active' AND pid <> pg_backend_pid() AND query LIKE 'INSERT INTO device_window_stats%'")) {
            long deadline = System.currentTimeMillis() + 10_000;
            while (!inFlight && System.currentTimeMillis() < deadline) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    inFlight = rs.getInt(1) > 0;
                }
            }
        }
        String killed = postgres.kill9();
        return "PostgreSQL (" + killed + ")"
                + (inFlight ? " with a sink batch in flight" : " (no sink batch seen in flight within 10 s)");
    }

    @Override
    public String killKafka() {
        kafka.kill9();
        return kafka.toString();
    }

    @Override
    public String cut(LocalBackend.Link link) {
        if (partitions == null) {
            throw new IllegalStateException("this cluster was started without partitions (enablePartitions)");
        }
        List<ManagedProcess> live =
                taskManagers.stream().filter(ManagedProcess::alive).toList();
        List<String> tms = live.stream().map(tm -> tm.name).toList();
        return switch (link) {
            case DB -> {
                partitions.dropFrom(tms, List.of(pgPort));
                yield "from " + tms + " to PostgreSQL (port " + pgPort + ")";
            }
            case KAFKA -> {
                partitions.dropFrom(tms, List.of(kafkaPort));
                yield "from " + tms + " to the broker (port " + kafkaPort + ")";
            }
            case JM -> {
                String tm = busyTaskManager().orElse(tms.get(0));
                List<Integer> jms = jobManagers.stream()
                        .filter(ManagedProcess::alive)
                        .map(jm -> rpcPorts.get(jm.name))
                        .toList();
                // Both ways: what the TaskManager sends to the JobManagers' RPC ports, and every
                // packet to or from its own RPC port (the JobManagers' connections to it).
                partitions.dropFrom(List.of(tm), jms);
                partitions.dropPort(rpcPorts.get(tm));
                yield "between " + tm + " (RPC port " + rpcPorts.get(tm) + ") and the JobManagers (RPC ports " + jms
                        + ")";
            }
        };
    }

    /**
     * A live TaskManager that runs tasks, by name: the REST API names a TaskManager {@code
     * host:rpcPort-suffix}, and each TaskManager here has an RPC port of its own.
     */
    private Optional<String> busyTaskManager() {
        try {
            List<Integer> busy = rest.taskManagers(anyRest().orElseThrow()).stream()
                    .filter(io.lineflow.flinkrest.TaskManager::busy)
                    .map(t -> t.id().replaceFirst("^[^:]*:(\\d+)-.*$", "$1"))
                    .filter(p -> p.matches("\\d+"))
                    .map(Integer::valueOf)
                    .toList();
            return taskManagers.stream()
                    .filter(ManagedProcess::alive)
                    .map(tm -> tm.name)
                    .filter(name -> busy.contains(rpcPorts.get(name)))
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public void heal() {
        partitions.heal();
    }

    /** A Flink process of this cluster, for what the soak samples of it. */
    record FlinkProcess(String name, long pid, boolean alive) {}

    /** Every JobManager and TaskManager started so far, live or not. */
    List<FlinkProcess> flinkProcesses() {
        List<FlinkProcess> out = new ArrayList<>();
        for (ManagedProcess p : jobManagers) {
            out.add(new FlinkProcess(p.name, p.pid(), p.alive()));
        }
        for (ManagedProcess p : taskManagers) {
            out.add(new FlinkProcess(p.name, p.pid(), p.alive()));
        }
        return out;
    }

    /** A live JobManager's REST address, if one answers. */
    Optional<String> restAddress() {
        return anyRest();
    }

    // ---------------------------------------------------------------- Flink

    /** Two JobManagers (ZooKeeper HA) and two TaskManagers; returns when both TMs registered. */
    void startFlink() {
        for (int i = 0; i < 2; i++) {
            startJobManager();
        }
        for (int i = 0; i < 2; i++) {
            startTaskManager();
        }
        if (!Await.until(
                Duration.ofMinutes(2),
                Duration.ofMillis(500),
                () -> anyRest().map(this::taskManagers).orElse(0) >= 2)) {
            throw new IllegalStateException("Flink cluster did not come up; logs in " + dir);
        }
    }

    /**
     * A fresh cluster: every Flink process and ZooKeeper killed, and a new ZooKeeper and HA
     * cluster id, so nothing is recovered from HA — only what the caller restores explicitly.
     */
    @Override
    public void replaceFlinkWithFreshCluster() {
        jobManagers.forEach(ManagedProcess::kill9);
        taskManagers.forEach(ManagedProcess::kill9);
        jobManagers.clear();
        jobManagerRest.clear();
        taskManagers.clear();
        generation++; // a new HA cluster id
        if (zookeeper != null) {
            zookeeper.kill9();
            startZooKeeper();
        }
        startFlink();
    }

    private Configuration flinkConfig(int restPort) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.host", "127.0.0.1");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.port", String.valueOf(restPort));
        c.put("jobmanager.rpc.port", "0");
        c.put("blob.server.port", "0");
        if (haKubeconfig == null) {
            c.put("high-availability.type", "zookeeper");
            c.put("high-availability.zookeeper.quorum", "127.0.0.1:" + zkPort);
            c.put("high-availability.cluster-id", "/drill-" + generation);
        } else {
            c.put("high-availability.type", "kubernetes");
            c.put("kubernetes.cluster-id", "drill-" + generation);
            c.put("kubernetes.namespace", haNamespace);
            c.put("kubernetes.config.file", haKubeconfig.toString());
            // Shorter than the defaults (15 s / 15 s / 5 s), like the ZooKeeper timeouts above.
            c.put("high-availability.kubernetes.leader-election.lease-duration", "8 s");
            c.put("high-availability.kubernetes.leader-election.renew-deadline", "8 s");
            c.put("high-availability.kubernetes.leader-election.retry-period", "2 s");
        }
        c.put("high-availability.storageDir", dir.resolve("ha").toUri().toString());
        c.put("high-availability.zookeeper.client.session-timeout", "8000");
        c.put("high-availability.zookeeper.client.connection-timeout", "5000");
        c.put("heartbeat.interval", "2000");
        c.put("heartbeat.timeout", "8000");
        c.put("taskmanager.numberOfTaskSlots", "2");
        // Spread the job over both TaskManagers, so that killing either one hits it.
        c.put("cluster.evenly-spread-out-slots", "true");
        c.put("jobmanager.memory.process.size", "768m");
        c.put("taskmanager.memory.process.size", "1280m");
        c.put("restart-strategy.type", "exponential-delay");
        c.put("restart-strategy.exponential-delay.initial-backoff", "1 s");
        c.put("restart-strategy.exponential-delay.max-backoff", "5 s");
        c.put("state.checkpoints.dir", dir.resolve("checkpoints").toUri().toString());
        c.put("state.savepoints.dir", dir.resolve("savepoints").toUri().toString());
        // Where RocksDB keeps its working files, when the job runs on it (the soak measures them).
        c.put("state.backend.rocksdb.localdir", dir.resolve("rocksdb").toString());
        c.put("io.tmp.dirs", mkdirs(dir.resolve("tmp")).toString());
        c.put("web.upload.dir", mkdirs(dir.resolve("uploads")).toString());
        c.put("web.tmpdir", mkdirs(dir.resolve("web")).toString());
        c.put("env.java.opts.all", String.join(" ", JDK17_OPENS));
        if (finishedJobsKept != null) {
            c.put("jobstore.expiration-time", String.valueOf(finishedJobsKept.toSeconds()));
        }
        return Configuration.fromMap(c);
    }

    private Path writeConfigDir(String name, Configuration conf) {
        Path confDir = mkdirs(dir.resolve("conf-" + name));
        try {
            Files.writeString(
                    confDir.resolve("flink-conf.yaml"),
                    conf.toMap().entrySet().stream()
                            .map(e -> e.getKey() + ": " + e.getValue())
                            .collect(Collectors.joining("\n", "", "\n")));
            Files.writeString(
                    confDir.resolve("log4j.properties"),
                    "rootLogger.level = INFO\nrootLogger.appenderRef.f.ref = f\n"
                            + "appender.f.type = File\nappender.f.name = f\nappender.f.fileName = ${sys:log.file}\n"
                            + "appender.f.layout.type = PatternLayout\n"
                            + "appender.f.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return confDir;
    }

    @Override
    public void startJobManager() {
        int restPort = EmbeddedKafka.freePort();
        Configuration conf = flinkConfig(restPort);
        String name = "jobmanager-" + (jobManagers.size() + 1) + "-g" + generation;
        int rpcPort = EmbeddedKafka.freePort();
        conf.setString("jobmanager.rpc.port", String.valueOf(rpcPort));
        // With HA the JobManager's RPC listens here, not on jobmanager.rpc.port (partition-jm
        // dropped packets to the latter and changed nothing: checkpoints kept completing).
        conf.setString("high-availability.jobmanager.port", String.valueOf(rpcPort));
        rpcPorts.put(name, rpcPort);
        JobManagerProcessSpec spec = JobManagerProcessUtils.processSpecFromConfigWithNewOptionToInterpretLegacyHeap(
                conf, JobManagerOptions.JVM_HEAP_MEMORY);
        jobManagers.add(startFlinkProcess(
                name,
                conf,
                JobManagerProcessUtils.generateJvmParametersStr(spec, conf),
                JobManagerProcessUtils.generateDynamicConfigsStr(spec),
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint"));
        jobManagerRest.add("http://127.0.0.1:" + restPort);
    }

    @Override
    public void startTaskManager() {
        Configuration conf = flinkConfig(0);
        String name = "taskmanager-" + (taskManagers.size() + 1) + "-g" + generation;
        int rpcPort = EmbeddedKafka.freePort();
        conf.setString("taskmanager.rpc.port", String.valueOf(rpcPort));
        rpcPorts.put(name, rpcPort);
        TaskExecutorProcessSpec spec = TaskExecutorProcessUtils.processSpecFromConfig(conf);
        taskManagers.add(startFlinkProcess(
                name,
                conf,
                ProcessMemoryUtils.generateJvmParametersStr(spec),
                TaskExecutorProcessUtils.generateDynamicConfigsStr(spec),
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner"));
    }

    /**
     * Starts a JobManager or TaskManager as Flink's scripts do: its own config folder, the memory
     * flags and dynamic properties Flink computes from the configuration (what {@code
     * BashJavaUtils} prints for the scripts), and the JDK 17 opens.
     */
    private ManagedProcess startFlinkProcess(
            String name, Configuration conf, String memoryFlags, String dynamicConfigs, String mainClass) {
        Path confDir = writeConfigDir(name, conf);
        List<String> jvm = new ArrayList<>(split(memoryFlags));
        jvm.addAll(JDK17_OPENS);
        jvm.add("-Dlog.file=" + dir.resolve(name + ".log"));
        // Every collection with its pause and the heap before and after it, to read when a run
        // grows or stalls (the soak's live-heap measures show as "Pause Full (Heap Inspection Initiated GC)").
        jvm.add("-Xlog:gc:file=" + dir.resolve(name + "-gc.log"));
        jvm.add("-Dlog4j.configurationFile="
                + confDir.resolve("log4j.properties").toUri());
        if (oneRestArena && name.startsWith("jobmanager")) {
            jvm.add(ONE_REST_ARENA);
        }
        List<String> args = new ArrayList<>(List.of("--configDir", confDir.toString()));
        args.addAll(split(dynamicConfigs));
        if (partitions != null && name.startsWith("taskmanager")) {
            List<String> cmd =
                    partitions.inCgroup(name, ManagedProcess.javaCommand(jvm, flinkClasspath, mainClass, args));
            return ManagedProcess.start(name, new ProcessBuilder(cmd), dir.resolve(name + ".out"));
        }
        return ManagedProcess.java(name, jvm, flinkClasspath, mainClass, args, dir.resolve(name + ".out"));
    }

    /** kill -9 of the first live TaskManager. */
    @Override
    public String killTaskManager() {
        ManagedProcess tm =
                taskManagers.stream().filter(ManagedProcess::alive).findFirst().orElseThrow();
        tm.kill9();
        return tm.toString();
    }

    /** kill -9 of the JobManager that leads (whose Dispatcher holds the leadership). */
    @Override
    public String killLeadingJobManager() {
        ManagedProcess leader = leadingJobManager();
        leader.kill9();
        return leader.toString();
    }

    @Override
    public String submit(Path jar, List<String> args, int parallelism, String restoreFrom) throws IOException {
        String base = anyRest().orElseThrow();
        return rest.runJar(base, rest.uploadJar(base, jar), ENTRY_CLASS, args, parallelism, restoreFrom);
    }

    @Override
    public String stopWithSavepoint(String jobId) throws IOException {
        return rest.stopWithSavepoint(
                anyRest().orElseThrow(),
                jobId,
                dir.resolve("savepoints").toUri().toString(),
                Duration.ofMinutes(2));
    }

    @Override
    public Optional<JobDetails> job(String jobId) {
        return anyRest().flatMap(base -> {
            try {
                return Optional.of(rest.job(base, jobId));
            } catch (IOException e) {
                return Optional.empty();
            }
        });
    }

    /**
     * The JobManager that leads, as Flink's own HA services record it (ZooKeeper or Kubernetes,
     * whichever the cluster runs): the address of the leading REST endpoint, which is one of the
     * JobManagers' {@code http://127.0.0.1:<port>}. A JobManager process leads all its components
     * at once (Dispatcher, resource manager, REST endpoint), so this is the Dispatcher's leader too.
     * Not from the logs: their times of day do not order grants across midnight.
     */
    private ManagedProcess leadingJobManager() {
        String[] leader = {null};
        Throwable[] failure = {null};
        boolean found = Await.until(Duration.ofSeconds(60), Duration.ofMillis(500), () -> {
            try (ClientHighAvailabilityServices ha =
                    HighAvailabilityServicesUtils.createClientHAService(flinkConfig(0), e -> failure[0] = e)) {
                leader[0] = LeaderRetrievalUtils.retrieveLeaderInformation(
                                ha.getClusterRestEndpointLeaderRetriever(), Duration.ofSeconds(10))
                        .getLeaderAddress();
            } catch (Exception e) {
                failure[0] = e; // no leader recorded yet, or the HA store not reachable: ask again
                return false;
            }
            int i = jobManagerRest.indexOf(leader[0]);
            return i >= 0 && jobManagers.get(i).alive();
        });
        if (!found) {
            throw new IllegalStateException("the HA services named no live JobManager as the leader within 60 s (last"
                    + " named: " + leader[0] + "; the JobManagers: " + jobManagerRest + "; last error: " + failure[0]
                    + ")");
        }
        return jobManagers.get(jobManagerRest.indexOf(leader[0]));
    }

    /** How many TaskManagers the JobManager behind {@code base} knows; 0 while it cannot tell. */
    private int taskManagers(String base) {
        try {
            return rest.taskManagers(base).size();
        } catch (IOException e) {
            return 0;
        }
    }

    /** A REST endpoint of a live JobManager, any will do (they forward to the leader). */
    private Optional<String> anyRest() {
        for (int i = 0; i < jobManagers.size(); i++) {
            if (jobManagers.get(i).alive() && rest.answers(jobManagerRest.get(i))) {
                return Optional.of(jobManagerRest.get(i));
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        taskManagers.forEach(ManagedProcess::kill9);
        jobManagers.forEach(ManagedProcess::kill9);
        if (kafka != null) {
            kafka.kill9();
        }
        if (zookeeper != null) {
            zookeeper.kill9();
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException | RuntimeException e) {
                // already stopped (a db-outage scenario that failed mid-way)
            }
        }
        if (partitions != null) {
            partitions.close();
        }
    }

    // ---------------------------------------------------------------- helpers

    private static List<String> split(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(t -> !t.isEmpty()).collect(Collectors.toList());
    }

    private static Path mkdirs(Path p) {
        try {
            return Files.createDirectories(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
