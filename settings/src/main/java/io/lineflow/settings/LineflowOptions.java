package io.lineflow.settings;

import io.lineflow.rules.Rules;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Every lineflow setting, under the {@code lineflow.} prefix: what the job is given and what the
 * reconciler's audit reads back from a deployment ({@link LineflowSettings} merges and checks
 * them). Checkpointing and state are set with Flink's own keys ({@code execution.checkpointing.*},
 * {@code state.*}), so the Flink cluster configuration, the operator and the reconciler all read
 * the same values; the job gives those keys lineflow's defaults where nobody set them.
 *
 * <p>Each key can also come from an environment variable: upper case, with {@code .} and {@code
 * -} as {@code _}, e.g. {@code LINEFLOW_JDBC_PASSWORD}.
 */
public final class LineflowOptions {
    private LineflowOptions() {}

    public static final String PREFIX = "lineflow.";
    /** Keys under this prefix go to the Kafka consumer as they are, without the prefix. */
    public static final String KAFKA_PROPERTIES_PREFIX = PREFIX + "kafka.properties.";
    /** Keys under this prefix go to the PostgreSQL driver as connection properties. */
    public static final String JDBC_PROPERTIES_PREFIX = PREFIX + "jdbc.properties.";

    /** Where the Kafka source starts when it has no checkpoint to restore from. */
    public enum StartingOffsets {
        /** The group's committed offsets; the earliest offset for partitions without one. */
        COMMITTED,
        EARLIEST,
        LATEST
    }

    /** How the sink writes a window row that already exists. */
    public enum SinkMode {
        /** Overwrite the row: replays and re-fired windows leave the same table. */
        UPSERT,
        /**
         * Add the new figures to the row's. Wrong by design (replays double counts); exists only
         * as the restart drill's negative control.
         */
        ADDITIVE
    }

    public static final ConfigOption<String> KAFKA_BOOTSTRAP_SERVERS = ConfigOptions.key(
                    PREFIX + "kafka.bootstrap-servers")
            .stringType()
            .noDefaultValue()
            .withDescription("Kafka bootstrap servers, host:port[,host:port...]. Required.");

    public static final ConfigOption<String> KAFKA_TOPIC = ConfigOptions.key(PREFIX + "kafka.topic")
            .stringType()
            .defaultValue("device-events")
            .withDescription("Topic of the device events (key = device id, value = JSON).");

    public static final ConfigOption<String> KAFKA_GROUP_ID = ConfigOptions.key(PREFIX + "kafka.group-id")
            .stringType()
            .defaultValue("lineflow")
            .withDescription("Consumer group id. Offsets are committed on checkpoints for monitoring"
                    + " only; recovery uses the offsets in the checkpoint.");

    public static final ConfigOption<StartingOffsets> KAFKA_STARTING_OFFSETS = ConfigOptions.key(
                    PREFIX + "kafka.starting-offsets")
            .enumType(StartingOffsets.class)
            .defaultValue(StartingOffsets.COMMITTED)
            .withDescription("Where to start without a checkpoint: COMMITTED (falling back to"
                    + " EARLIEST), EARLIEST or LATEST.");

    public static final ConfigOption<String> JDBC_URL = ConfigOptions.key(PREFIX + "jdbc.url")
            .stringType()
            .noDefaultValue()
            .withDescription("PostgreSQL JDBC URL, jdbc:postgresql://host:port/db. Required.");

    public static final ConfigOption<String> JDBC_USER = ConfigOptions.key(PREFIX + "jdbc.user")
            .stringType()
            .noDefaultValue()
            .withDescription("PostgreSQL user.");

    public static final ConfigOption<String> JDBC_PASSWORD = ConfigOptions.key(PREFIX + "jdbc.password")
            .stringType()
            .noDefaultValue()
            .withDescription(
                    "PostgreSQL password. Give it as LINEFLOW_JDBC_PASSWORD from a Secret;" + " it is never logged.");

    public static final ConfigOption<Duration> WINDOW_SIZE = ConfigOptions.key(PREFIX + "window.size")
            .durationType()
            .defaultValue(Rules.DEFAULT_WINDOW)
            .withDescription("Length of the tumbling event-time windows.");

    public static final ConfigOption<Duration> ALLOWED_LATENESS = ConfigOptions.key(PREFIX + "window.allowed-lateness")
            .durationType()
            .defaultValue(Rules.DEFAULT_LATENESS)
            .withDescription("How long after a window closes a late event still updates it (the row"
                    + " is overwritten). Later events are kept as LATE.");

    public static final ConfigOption<Duration> IDLE_EMIT = ConfigOptions.key(PREFIX + "window.idle-emit")
            .durationType()
            .defaultValue(Duration.ofMinutes(2))
            .withDescription("A window whose end has passed on the wall clock is written, with the"
                    + " figures so far, once its device has sent nothing for this"
                    + " long (processing time), also right after a restore, even if"
                    + " the watermark has not passed it. The watermark's firing"
                    + " overwrites the row later; no event is made late.");

    public static final ConfigOption<Duration> OUT_OF_ORDERNESS = ConfigOptions.key(
                    PREFIX + "watermark.out-of-orderness")
            .durationType()
            .defaultValue(Rules.DEFAULT_OUT_OF_ORDERNESS)
            .withDescription("How far out of order events may arrive before they are late.");

    public static final ConfigOption<Duration> IDLENESS = ConfigOptions.key(PREFIX + "watermark.idleness")
            .durationType()
            .defaultValue(Duration.ofMinutes(1))
            .withDescription("A Kafka partition silent this long stops holding back the watermark.");

    /**
     * Options that no longer exist, with why and what to do: setting one fails the job at start
     * rather than being ignored.
     */
    public static final Map<String, String> RETIRED = Map.of(
            PREFIX + "dedup.horizon",
            "an eventId is counted once per device and window, and remembered while its window is open"
                    + " (a repeat after the window is final is kept as LATE); remove the setting");

    public static final ConfigOption<Duration> MAX_FUTURE = ConfigOptions.key(PREFIX + "events.max-future")
            .durationType()
            .defaultValue(Rules.DEFAULT_MAX_FUTURE)
            .withDescription("Events stamped further ahead of the wall clock are kept as"
                    + " FUTURE_TIMESTAMP (they would push the watermark and make"
                    + " every other event late).");

    public static final ConfigOption<String> EARLIEST_EVENT_TIME = ConfigOptions.key(PREFIX + "events.earliest")
            .stringType()
            .defaultValue(Rules.DEFAULT_EARLIEST.toString())
            .withDescription("Events stamped before this ISO-8601 instant (or beyond what epoch"
                    + " milliseconds hold) are kept as TIMESTAMP_OUT_OF_RANGE:"
                    + " a clock reset to zero, a garbage date. From"
                    + " 1970-01-01T00:00:00Z on.");

    public static final ConfigOption<MemorySize> MAX_EVENT_SIZE = ConfigOptions.key(PREFIX + "events.max-bytes")
            .memoryType()
            .defaultValue(new MemorySize(Rules.DEFAULT_MAX_BYTES))
            .withDescription("Larger record values are kept as OVERSIZED, not parsed.");

    public static final ConfigOption<Integer> SINK_BATCH_SIZE = ConfigOptions.key(PREFIX + "sink.batch-size")
            .intType()
            .defaultValue(500)
            .withDescription("Rows per JDBC batch.");

    public static final ConfigOption<Duration> SINK_BATCH_INTERVAL = ConfigOptions.key(PREFIX + "sink.batch-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(1))
            .withDescription("A partly filled batch is written after this long.");

    public static final ConfigOption<Integer> SINK_MAX_RETRIES = ConfigOptions.key(PREFIX + "sink.max-retries")
            .intType()
            .defaultValue(5)
            .withDescription("Retries of a failed batch before the job fails and recovers from its"
                    + " last checkpoint. A row PostgreSQL refuses for its content"
                    + " (SQLState class 22, 23 or 54) is not retried: it is kept in"
                    + " rejected_events as REFUSED_BY_DATABASE.");

    public static final ConfigOption<SinkMode> SINK_MODE = ConfigOptions.key(PREFIX + "sink.mode")
            .enumType(SinkMode.class)
            .defaultValue(SinkMode.UPSERT)
            .withDescription("UPSERT overwrites a window row. ADDITIVE adds to it and double counts"
                    + " on replay: for the drill's negative control only.");

    public static final ConfigOption<Boolean> CHECKPOINTING_ENABLED = ConfigOptions.key(
                    PREFIX + "checkpointing.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("Turning checkpointing off loses or doubles counts on any restart; it"
                    + " exists for the drill's negative control.");

    public static final ConfigOption<Boolean> SCHEMA_CHECK = ConfigOptions.key(PREFIX + "schema.check")
            .booleanType()
            .defaultValue(true)
            .withDescription("Check at start that the database schema is at the version this job" + " expects.");

    public static final ConfigOption<String> JOB_NAME = ConfigOptions.key(PREFIX + "job.name")
            .stringType()
            .defaultValue("lineflow")
            .withDescription("Flink job name.");

    public static final ConfigOption<Duration> DOWNTIME_SILENT_FILL = ConfigOptions.key(PREFIX + "downtime.silent-fill")
            .durationType()
            .defaultValue(Rules.DEFAULT_SILENT_FILL)
            .withDescription("While a stop is open and its device sends nothing, each silent window is"
                    + " written fully down, for at most this long after the device's last window"
                    + " with events; beyond it nothing is written until the device sends again, and"
                    + " that window still starts stopped. Bounds the rows one stale DOWNTIME_START"
                    + " can make (a stop from years back would otherwise fill every window since).");

    public static final ConfigOption<MemorySize> ROCKSDB_MAX_MANIFEST_SIZE = ConfigOptions.key(
                    PREFIX + "rocksdb.max-manifest-size")
            .memoryType()
            .defaultValue(MemorySize.parse("16 kb"))
            .withDescription("With the RocksDB state backend: each state database's MANIFEST (its log of"
                    + " flushes and compactions, uploaded whole with every checkpoint) is started"
                    + " afresh past this size. RocksDB's own limit, 1 GiB, lets it grow with every"
                    + " checkpoint until the job restarts.");

    /** Every option above, for validation, environment lookup and documentation. */
    public static final List<ConfigOption<?>> ALL = List.of(
            KAFKA_BOOTSTRAP_SERVERS,
            KAFKA_TOPIC,
            KAFKA_GROUP_ID,
            KAFKA_STARTING_OFFSETS,
            JDBC_URL,
            JDBC_USER,
            JDBC_PASSWORD,
            WINDOW_SIZE,
            ALLOWED_LATENESS,
            IDLE_EMIT,
            DOWNTIME_SILENT_FILL,
            OUT_OF_ORDERNESS,
            IDLENESS,
            MAX_FUTURE,
            EARLIEST_EVENT_TIME,
            MAX_EVENT_SIZE,
            ROCKSDB_MAX_MANIFEST_SIZE,
            SINK_BATCH_SIZE,
            SINK_BATCH_INTERVAL,
            SINK_MAX_RETRIES,
            SINK_MODE,
            CHECKPOINTING_ENABLED,
            SCHEMA_CHECK,
            JOB_NAME);
}
