package io.lineflow.drill.local;

import static io.lineflow.drill.local.LocalServices.mkdirs;

import io.lineflow.drill.core.Await;
import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.job.LineflowJob;
import io.lineflow.testing.EmbeddedKafka;
import io.lineflow.testing.JdkOpens;
import io.lineflow.testing.ManagedProcess;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessSpec;
import org.apache.flink.runtime.clusterframework.TaskExecutorProcessUtils;
import org.apache.flink.runtime.highavailability.ClientHighAvailabilityServices;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;
import org.apache.flink.runtime.jobmanager.JobManagerProcessSpec;
import org.apache.flink.runtime.jobmanager.JobManagerProcessUtils;
import org.apache.flink.runtime.util.LeaderRetrievalUtils;
import org.apache.flink.runtime.util.config.memory.ProcessMemoryUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * The local cluster's Flink processes, started as Flink's scripts start them: JobManagers with HA
 * (a leader and a standby) and TaskManagers, each with its configuration folder, its RPC port and
 * its log; their REST API, the leader as Flink's HA services record it, and kill -9 of either kind.
 * Timeouts are short (heartbeat 2 s / 8 s) so a lost JobManager is replaced in about 15 s.
 */
final class FlinkProcesses implements AutoCloseable {
    /** What Flink needs opened on JDK 17 (as Flink's own start scripts do): the project's one list. */
    static final List<String> JDK17_OPENS = JdkOpens.flags();

    /** Netty's {@code io.netty.allocator.numHeapArenas} as Flink's shading renames it: one heap arena. */
    static final String ONE_REST_ARENA = "-Dorg.apache.flink.shaded.netty4.io.netty.allocator.numHeapArenas=1";

    /** The job's main class: the drill runs the jar a user would upload. */
    private static final String ENTRY_CLASS = LineflowJob.class.getName();

    private final Path dir;
    /** The Flink distribution the next processes start from: a major upgrade replaces it. */
    private String flinkClasspath;

    private final IntFunction<Map<String, String>> ha;
    private final List<ManagedProcess> jobManagers = new ArrayList<>();
    private final List<String> jobManagerRest = new ArrayList<>();
    private final List<ManagedProcess> taskManagers = new ArrayList<>();
    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(5));
    /** Each Flink process's RPC port, by process name: a partition cuts a TaskManager off by them. */
    private final Map<String, Integer> rpcPorts = new LinkedHashMap<>();

    private int generation;
    /** When set, TaskManagers start in cgroups of their own, which iptables tells apart. */
    private LoopbackPartitions partitions;
    /** How long a JobManager keeps a job that has ended; Flink's hour when null. */
    private Duration finishedJobsKept;
    /** Whether the JobManagers' REST server pools its buffers in one arena. */
    private boolean oneRestArena;

    /**
     * @param flinkClasspath what a Flink distribution has, never the job's classes or connectors
     *     (those come in the uploaded jar, as on a real cluster)
     * @param ha the high-availability settings of an HA generation (a new generation recovers
     *     nothing of the one before)
     */
    FlinkProcesses(Path dir, String flinkClasspath, IntFunction<Map<String, String>> ha) {
        this.dir = dir;
        this.flinkClasspath = flinkClasspath;
        this.ha = ha;
    }

    int generation() {
        return generation;
    }

    /** TaskManagers started from now on start in {@code partitions}' cgroups. */
    void partitionedBy(LoopbackPartitions partitions) {
        this.partitions = partitions;
    }

    /** {@code jobstore.expiration-time} of the JobManagers started from now on. */
    void keepFinishedJobs(Duration kept) {
        finishedJobsKept = kept;
    }

    /** The JobManagers started from now on pool their REST buffers in one arena ({@link #ONE_REST_ARENA}). */
    void poolRestBuffersInOneArena() {
        oneRestArena = true;
    }

    /** Two JobManagers and two TaskManagers; returns when both TMs registered. */
    void start() {
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

    /** The processes started from now on run {@code flinkClasspath}'s Flink (a major upgrade's). */
    void runFrom(String flinkClasspath) {
        if (!jobManagers.isEmpty() || !taskManagers.isEmpty()) {
            throw new IllegalStateException("Flink processes still run: kill them before another Flink runs");
        }
        this.flinkClasspath = flinkClasspath;
    }

    /** Every Flink process killed and forgotten; the next ones start in a new HA generation. */
    void killAllAndForget() {
        close();
        jobManagers.clear();
        jobManagerRest.clear();
        taskManagers.clear();
        generation++;
    }

    Configuration config(int restPort) {
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
        c.putAll(ha.apply(generation));
        c.put("high-availability.storageDir", dir.resolve("ha").toUri().toString());
        c.put("high-availability.zookeeper.client.session-timeout", "8000");
        c.put("high-availability.zookeeper.client.connection-timeout", "5000");
        c.put("heartbeat.interval", "2000");
        c.put("heartbeat.timeout", "8000");
        c.put("taskmanager.numberOfTaskSlots", "2");
        // Spread the job over both TaskManagers, so that killing either one hits it.
        c.put("taskmanager.load-balance.mode", "SLOTS");
        c.put("jobmanager.memory.process.size", "768m");
        c.put("taskmanager.memory.process.size", "1280m");
        c.put("restart-strategy.type", "exponential-delay");
        c.put("restart-strategy.exponential-delay.initial-backoff", "1 s");
        c.put("restart-strategy.exponential-delay.max-backoff", "5 s");
        c.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
        c.put(
                "execution.checkpointing.savepoint-dir",
                dir.resolve("savepoints").toUri().toString());
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
            // config.yaml, standard YAML: the only file Flink 2.x reads, and the one 1.20 reads
            // when there is no flink-conf.yaml. Every value is a double-quoted (JSON) string.
            Files.writeString(
                    confDir.resolve("config.yaml"),
                    conf.toMap().entrySet().stream()
                            .map(e -> e.getKey() + ": " + yamlString(e.getValue()))
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

    /** {@code value} as a YAML double-quoted scalar, which is a JSON string. */
    private static String yamlString(String value) {
        return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(value)) + "\"";
    }

    void startJobManager() {
        int restPort = EmbeddedKafka.freePort();
        Configuration conf = config(restPort);
        String name = "jobmanager-" + (jobManagers.size() + 1) + "-g" + generation;
        int rpcPort = EmbeddedKafka.freePort();
        conf.setString("jobmanager.rpc.port", String.valueOf(rpcPort));
        // With HA the JobManager's RPC listens here, not on jobmanager.rpc.port (partition-jm
        // dropped packets to the latter and changed nothing: checkpoints kept completing).
        conf.setString("high-availability.jobmanager.port", String.valueOf(rpcPort));
        rpcPorts.put(name, rpcPort);
        JobManagerProcessSpec spec = JobManagerMemory.spec(conf);
        jobManagers.add(startFlinkProcess(
                name,
                conf,
                JobManagerProcessUtils.generateJvmParametersStr(spec, conf),
                JobManagerProcessUtils.generateDynamicConfigsStr(spec),
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint"));
        jobManagerRest.add("http://127.0.0.1:" + restPort);
    }

    void startTaskManager() {
        Configuration conf = config(0);
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
    String killTaskManager() {
        ManagedProcess tm =
                taskManagers.stream().filter(ManagedProcess::alive).findFirst().orElseThrow();
        tm.kill9();
        return tm.toString();
    }

    /** kill -9 of the JobManager that leads (whose Dispatcher holds the leadership). */
    String killLeadingJobManager() {
        ManagedProcess leader = leadingJobManager();
        leader.kill9();
        return leader.toString();
    }

    String submit(Path jar, List<String> args, int parallelism, String restoreFrom) throws IOException {
        String base = anyRest().orElseThrow();
        return rest.runJar(base, rest.uploadJar(base, jar), ENTRY_CLASS, args, parallelism, restoreFrom);
    }

    String stopWithSavepoint(String jobId) throws IOException {
        return rest.stopWithSavepoint(
                anyRest().orElseThrow(),
                jobId,
                dir.resolve("savepoints").toUri().toString(),
                Duration.ofMinutes(2));
    }

    Optional<JobDetails> job(String jobId) {
        return anyRest().flatMap(base -> {
            try {
                return Optional.of(rest.job(base, jobId));
            } catch (IOException e) {
                return Optional.empty();
            }
        });
    }

    /** A Flink process of this cluster, for what the soak samples of it. */
    record FlinkProcess(String name, long pid, boolean alive) {}

    /** Every JobManager and TaskManager started so far, live or not. */
    List<FlinkProcess> processes() {
        List<FlinkProcess> out = new ArrayList<>();
        for (ManagedProcess p : jobManagers) {
            out.add(new FlinkProcess(p.name, p.pid(), p.alive()));
        }
        for (ManagedProcess p : taskManagers) {
            out.add(new FlinkProcess(p.name, p.pid(), p.alive()));
        }
        return out;
    }

    /** The live TaskManagers, by name. */
    List<String> liveTaskManagers() {
        return taskManagers.stream()
                .filter(ManagedProcess::alive)
                .map(tm -> tm.name)
                .toList();
    }

    /** The RPC ports of the live JobManagers. */
    List<Integer> liveJobManagerRpcPorts() {
        return jobManagers.stream()
                .filter(ManagedProcess::alive)
                .map(jm -> rpcPorts.get(jm.name))
                .toList();
    }

    /** The RPC port of the process {@code name}. */
    int rpcPort(String name) {
        return rpcPorts.get(name);
    }

    /**
     * A live TaskManager that runs tasks, by name: the REST API names a TaskManager {@code
     * host:rpcPort-suffix}, and each TaskManager here has an RPC port of its own.
     */
    Optional<String> busyTaskManager() {
        try {
            List<Integer> busy = rest.taskManagers(anyRest().orElseThrow()).stream()
                    .filter(io.lineflow.flinkrest.TaskManager::busy)
                    .map(t -> t.id().replaceFirst("^[^:]*:(\\d+)-.*$", "$1"))
                    .filter(p -> p.matches("\\d+"))
                    .map(Integer::valueOf)
                    .toList();
            return liveTaskManagers().stream()
                    .filter(name -> busy.contains(rpcPorts.get(name)))
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
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
            try (ClientHighAvailabilityServices services =
                    HighAvailabilityServicesUtils.createClientHAService(config(0), e -> failure[0] = e)) {
                leader[0] = LeaderRetrievalUtils.retrieveLeaderInformation(
                                services.getClusterRestEndpointLeaderRetriever(), Duration.ofSeconds(10))
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
    Optional<String> anyRest() {
        for (int i = 0; i < jobManagers.size(); i++) {
            if (jobManagers.get(i).alive() && rest.answers(jobManagerRest.get(i))) {
                return Optional.of(jobManagerRest.get(i));
            }
        }
        return Optional.empty();
    }

    /** kill -9 of every Flink process. */
    @Override
    public void close() {
        taskManagers.forEach(ManagedProcess::kill9);
        jobManagers.forEach(ManagedProcess::kill9);
    }

    private static List<String> split(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(t -> !t.isEmpty()).collect(Collectors.toList());
    }
}
