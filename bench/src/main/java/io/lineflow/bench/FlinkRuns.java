package io.lineflow.bench;

import io.lineflow.flinkrest.CheckpointStats;
import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.FlinkRestException;
import io.lineflow.job.LineflowJob;
import io.lineflow.job.config.JobConfig;
import io.lineflow.settings.LineflowOptions;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One Flink MiniCluster (one TaskManager, one slot per unit of parallelism, REST on a free port)
 * on which lineflow's job and the Flink SQL query run, each bounded to the pre-loaded offsets.
 */
public final class FlinkRuns implements AutoCloseable {

    private final MiniCluster cluster;
    private final int parallelism;
    private final Path workDir;
    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(10));
    private int runs;

    public FlinkRuns(int parallelism, Path workDir) throws Exception {
        this.parallelism = parallelism;
        this.workDir = workDir.toAbsolutePath();
        Configuration c = new Configuration();
        c.set(RestOptions.BIND_PORT, "0");
        c.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 1_000);
        c.set(CoreOptions.TMP_DIRS, this.workDir.resolve("flink-tmp").toString());
        c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("256m"));
        c.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("64m"));
        c.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("64m"));
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(c)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism)
                .build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, parallelism);
    }

    /** lineflow's job configuration, as a deployment would give it (plus {@code extra} pairs). */
    public Configuration lineflowConfig(String bootstrap, String topic, String jdbcUrl, String user, String... extra) {
        runs++;
        JobConfig.Builder b = JobConfig.builder()
                .kafka(bootstrap, topic, "bench-" + runs)
                .jdbc(jdbcUrl, user)
                .set(LineflowOptions.JOB_NAME, "lineflow-bench-" + runs)
                .set(
                        CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                        workDir.resolve("checkpoints").toUri().toString());
        for (int i = 0; i < extra.length; i += 2) {
            b.set(extra[i], extra[i + 1]);
        }
        return b.load();
    }

    /** Runs lineflow's job to the end of the pre-loaded topic; returns the wall time in seconds. */
    public double runLineflow(Configuration conf) throws Exception {
        StreamExecutionEnvironment env = env();
        LineflowJob.configure(env, conf);
        LineflowJob.attach(
                env,
                conf,
                LineflowJob.kafkaSource(conf)
                        .setBounded(OffsetsInitializer.latest())
                        .build());
        long t0 = System.nanoTime();
        env.executeAsync(conf.get(LineflowOptions.JOB_NAME))
                .getJobExecutionResult()
                .get();
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Starts lineflow's job without an end (for the checkpoint rows). */
    public JobClient startLineflow(Configuration conf) throws Exception {
        StreamExecutionEnvironment env = env();
        LineflowJob.configure(env, conf);
        LineflowJob.attach(env, conf, LineflowJob.kafkaSource(conf).build());
        return env.executeAsync(conf.get(LineflowOptions.JOB_NAME));
    }

    /**
     * The same figures in Flink SQL: Kafka table with a JSON format, a 5-minute TUMBLE per device,
     * JDBC upsert sink; same parallelism, checkpoint interval and state backend (HashMap) as
     * lineflow. Downtime seconds are left out: carrying an open stop across windows is not a
     * plain aggregate. With {@code dedupTtl}, events are first deduplicated the way Flink SQL does
     * it (ROW_NUMBER over device and eventId in processing-time order, keeping the first; state
     * TTL = {@code dedupTtl}), so that the query does lineflow's work. Returns the wall time in
     * seconds.
     */
    public double runSql(
            String bootstrap,
            String topic,
            String jdbcUrl,
            String sinkTable,
            long checkpointIntervalMs,
            Duration dedupTtl)
            throws Exception {
        StreamExecutionEnvironment env = env();
        env.enableCheckpointing(checkpointIntervalMs);
        // Through the configuration, which both Flink lines read (2.x removed the setter taking a path).
        Configuration checkpoints = new Configuration();
        checkpoints.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        checkpoints.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                workDir.resolve("checkpoints").toUri().toString());
        env.configure(checkpoints);
        // The same tuning lineflow's job applies to itself (LineflowJob.attach).
        env.getConfig().enableObjectReuse();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("table.exec.source.idle-timeout", "1 min");
        tEnv.getConfig().set("pipeline.name", "flink-sql-bench-" + (++runs));
        // Flink SQL's own throughput tuning: buffer input and update state once per key and batch.
        tEnv.getConfig().set("table.exec.mini-batch.enabled", "true");
        tEnv.getConfig().set("table.exec.mini-batch.allow-latency", "1 s");
        tEnv.getConfig().set("table.exec.mini-batch.size", "5000");
        if (dedupTtl != null) {
            tEnv.getConfig().set("table.exec.state.ttl", dedupTtl.toMillis() + " ms");
        }
        tEnv.executeSql("CREATE TEMPORARY TABLE events ("
                + " eventId STRING, deviceId STRING, lineId STRING, `type` STRING,"
                + " ts BIGINT, `count` INT, reason STRING,"
                + " rt AS TO_TIMESTAMP_LTZ(ts, 3), pt AS PROCTIME(),"
                + " WATERMARK FOR rt AS rt - INTERVAL '10' SECOND"
                + ") WITH ("
                + " 'connector' = 'kafka', 'topic' = '" + topic + "',"
                + " 'properties.bootstrap.servers' = '" + bootstrap + "',"
                + " 'properties.group.id' = 'bench-sql-" + runs + "',"
                + " 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset',"
                + " 'format' = 'json', 'json.ignore-parse-errors' = 'true')");
        tEnv.executeSql("CREATE TEMPORARY TABLE stats ("
                + " device_id STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3),"
                + " line_id STRING, pieces_produced BIGINT, downtime_count INT,"
                + " events_seen BIGINT, first_event_at TIMESTAMP(3), last_event_at TIMESTAMP(3),"
                + " PRIMARY KEY (device_id, window_start) NOT ENFORCED"
                + ") WITH ("
                + " 'connector' = 'jdbc', 'url' = '" + jdbcUrl + "',"
                + " 'table-name' = '" + sinkTable + "',"
                + " 'sink.buffer-flush.max-rows' = '500', 'sink.buffer-flush.interval' = '1s',"
                + " 'sink.max-retries' = '5')");
        String valid = "deviceId IS NOT NULL AND ts IS NOT NULL"
                + " AND `type` IN ('PIECE_PRODUCED', 'DOWNTIME_START', 'DOWNTIME_END')";
        String input = dedupTtl == null
                ? "SELECT * FROM events WHERE " + valid
                : "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY deviceId, eventId"
                        + " ORDER BY pt) AS rn FROM events WHERE " + valid + ") WHERE rn = 1";
        tEnv.executeSql("CREATE TEMPORARY VIEW input_events AS " + input);
        long t0 = System.nanoTime();
        TableResult result = tEnv.executeSql("INSERT INTO stats"
                + " SELECT deviceId, window_start, window_end, MAX(lineId),"
                + " SUM(CASE WHEN `type` = 'PIECE_PRODUCED' THEN CAST(`count` AS BIGINT) ELSE 0 END),"
                + " CAST(SUM(CASE WHEN `type` = 'DOWNTIME_START' THEN 1 ELSE 0 END) AS INT),"
                + " COUNT(*), CAST(MIN(rt) AS TIMESTAMP(3)), CAST(MAX(rt) AS TIMESTAMP(3))"
                + " FROM TABLE(TUMBLE(TABLE input_events, DESCRIPTOR(rt), INTERVAL '5' MINUTES))"
                + " GROUP BY deviceId, window_start, window_end");
        result.await();
        return (System.nanoTime() - t0) / 1e9;
    }

    private StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        return env;
    }

    /**
     * The job's checkpoint statistics from the cluster's REST API; {@link CheckpointStats#NONE}
     * while the job is not running yet (the JobManager answers 500 until it is).
     */
    public CheckpointStats checkpointStats(JobID id) throws Exception {
        if (cluster.getJobStatus(id).get() != JobStatus.RUNNING) {
            return CheckpointStats.NONE;
        }
        try {
            return rest.checkpoints(cluster.getRestAddress().get().toString(), id.toHexString());
        } catch (FlinkRestException e) {
            if (e.status() == 500 && e.getMessage().contains("initializing")) {
                return CheckpointStats.NONE;
            }
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        TestStreamEnvironment.unsetAsContext();
        cluster.close();
    }
}
