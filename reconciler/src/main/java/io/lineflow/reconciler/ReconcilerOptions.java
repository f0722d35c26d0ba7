package io.lineflow.reconciler;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.common.security.auth.SecurityProtocol;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every reconciler setting: typed options under {@code lineflow.reconciler.}, each with a default. */
public final class ReconcilerOptions {

    public static final String PREFIX = "lineflow.reconciler.";

    private ReconcilerOptions() {}

    // --- where to look -------------------------------------------------------------------------

    public static final ConfigOption<List<String>> NAMESPACES = ConfigOptions.key(PREFIX + "namespaces")
            .stringType()
            .asList()
            .defaultValues()
            .withDescription("Namespaces whose FlinkDeployments are watched (';'-separated). Empty: all namespaces.");

    public static final ConfigOption<String> LABEL_SELECTOR = ConfigOptions.key(PREFIX + "label-selector")
            .stringType()
            .defaultValue("")
            .withDescription("Optional label selector on FlinkDeployments, e.g. 'app.kubernetes.io/part-of=lineflow'.");

    public static final ConfigOption<Duration> INTERVAL = ConfigOptions.key(PREFIX + "interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("Time between two passes over all FlinkDeployments.");

    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key(PREFIX + "parallelism")
            .intType()
            .defaultValue(8)
            .withDescription("How many deployments are observed and acted on at the same time in one pass.");

    public static final ConfigOption<Duration> HISTORY_RETENTION = ConfigOptions.key(PREFIX + "history-retention")
            .durationType()
            .defaultValue(Duration.ofMinutes(30))
            .withDescription("How long earlier samples are kept for rate and trend checks.");

    // --- Flink REST ----------------------------------------------------------------------------

    public static final ConfigOption<String> REST_URL_TEMPLATE = ConfigOptions.key(PREFIX + "flink.rest-url-template")
            .stringType()
            .defaultValue("http://{name}-rest.{namespace}.svc:8081")
            .withDescription("JobManager REST URL of a deployment; {name} and {namespace} are replaced. "
                    + "The annotation lineflow.io/rest-url overrides it per deployment.");

    public static final ConfigOption<Duration> REST_TIMEOUT = ConfigOptions.key(PREFIX + "flink.rest-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription("Connect and request timeout for each Flink REST call.");

    // --- Kafka ---------------------------------------------------------------------------------

    public static final ConfigOption<Boolean> KAFKA_ENABLED = ConfigOptions.key(PREFIX + "kafka.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether Kafka admin is asked at all (retention, produce rate, lag).");

    public static final ConfigOption<String> KAFKA_BOOTSTRAP = ConfigOptions.key(PREFIX + "kafka.bootstrap-servers")
            .stringType()
            .defaultValue("kafka:9092")
            .withDescription("Default bootstrap servers; annotation lineflow.io/kafka-bootstrap overrides it.");

    // An enum option: Flink parses it (case-insensitively) and fromMap reports a value outside the
    // enum with this description, which lists Kafka's own names, so the list cannot go stale.
    public static final ConfigOption<SecurityProtocol> KAFKA_SECURITY_PROTOCOL = ConfigOptions.key(
                    PREFIX + "kafka.security-protocol")
            .enumType(SecurityProtocol.class)
            .defaultValue(SecurityProtocol.PLAINTEXT)
            .withDescription("Kafka's security.protocol for every admin connection, one of "
                    + String.join(", ", SecurityProtocol.names())
                    + ". SSL trusts the JVM's default truststore (cacerts);"
                    + " no setting passes SASL credentials yet.");

    public static final ConfigOption<String> KAFKA_TOPIC = ConfigOptions.key(PREFIX + "kafka.topic")
            .stringType()
            .defaultValue("device-events")
            .withDescription("Default input topic; annotation lineflow.io/kafka-topic overrides it.");

    public static final ConfigOption<String> KAFKA_GROUP = ConfigOptions.key(PREFIX + "kafka.group-id")
            .stringType()
            .defaultValue("lineflow")
            .withDescription(
                    "Consumer group whose committed offsets give the lag; annotation lineflow.io/kafka-group overrides it.");

    public static final ConfigOption<Duration> KAFKA_TIMEOUT = ConfigOptions.key(PREFIX + "kafka.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription("Timeout for each Kafka admin call.");

    // --- thresholds ----------------------------------------------------------------------------

    public static final ConfigOption<Duration> RESTART_WINDOW = ConfigOptions.key(PREFIX + "restart-loop.window")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withDescription("Window in which restarts are counted for RESTART_LOOP.");

    public static final ConfigOption<Integer> RESTART_THRESHOLD = ConfigOptions.key(PREFIX + "restart-loop.threshold")
            .intType()
            .defaultValue(3)
            .withDescription("Restarts within the window that make a RESTART_LOOP.");

    public static final ConfigOption<Duration> CHECKPOINT_FAILURE_WINDOW = ConfigOptions.key(
                    PREFIX + "checkpoint-failures.window")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withDescription("Window in which failed checkpoints are counted for CHECKPOINT_FAILURES.");

    public static final ConfigOption<Integer> CHECKPOINT_FAILURE_THRESHOLD = ConfigOptions.key(
                    PREFIX + "checkpoint-failures.threshold")
            .intType()
            .defaultValue(1)
            .withDescription("Failed checkpoints within the window that raise CHECKPOINT_FAILURES.");

    public static final ConfigOption<Duration> RETENTION_DETECTION_ALLOWANCE = ConfigOptions.key(
                    PREFIX + "kafka-retention.detection-allowance")
            .durationType()
            .defaultValue(Duration.ofMinutes(30))
            .withDescription("Time assumed to notice an outage, added to the checkpoint age.");

    public static final ConfigOption<Duration> RETENTION_RECOVERY_ALLOWANCE = ConfigOptions.key(
                    PREFIX + "kafka-retention.recovery-allowance")
            .durationType()
            .defaultValue(Duration.ofHours(4))
            .withDescription("Time assumed to repair and restart the job, added to the checkpoint age.");

    public static final ConfigOption<Duration> LAG_WINDOW = ConfigOptions.key(PREFIX + "consumer-lag.window")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withDescription("Window over which the lag trend is fitted.");

    public static final ConfigOption<Long> LAG_MIN_GROWTH = ConfigOptions.key(PREFIX + "consumer-lag.min-growth")
            .longType()
            .defaultValue(10_000L)
            .withDescription("Records the lag must grow by within the window to raise CONSUMER_LAG_GROWING.");

    public static final ConfigOption<Integer> LAG_MIN_SAMPLES = ConfigOptions.key(PREFIX + "consumer-lag.min-samples")
            .intType()
            .defaultValue(3)
            .withDescription("Samples needed in the window before a lag trend is judged.");

    public static final ConfigOption<Double> DUPLICATE_RATIO = ConfigOptions.key(PREFIX + "duplicate.ratio-threshold")
            .doubleType()
            .defaultValue(1.6)
            .withDescription(
                    "Source records/s divided by the topic's consume rate at or above which DUPLICATE_CONSUMPTION is raised (a doubled source reads about 2).");

    public static final ConfigOption<Double> DUPLICATE_MIN_RATE = ConfigOptions.key(
                    PREFIX + "duplicate.min-produce-rate")
            .doubleType()
            .defaultValue(1.0)
            .withDescription("Records/s the topic must receive before the ratio is judged (noise guard).");

    public static final ConfigOption<Duration> DUPLICATE_MIN_SPAN = ConfigOptions.key(
                    PREFIX + "duplicate.min-sample-span")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .withDescription("Shortest time between two end-offset samples used for the produce rate."
                    + " The source's numRecordsOutPerSecond averages over the last 60 s, so a shorter"
                    + " span compares two different stretches of time: after a broker outage the"
                    + " source's average still holds the backlog it drained while the produce and"
                    + " catch-up rates no longer do (seen under the operator as a false"
                    + " DUPLICATE_CONSUMPTION, ratio 1.88, with a 20 s span).");

    // --- acting --------------------------------------------------------------------------------

    public static final ConfigOption<Duration> EVENT_REPEAT_INTERVAL = ConfigOptions.key(
                    PREFIX + "events.repeat-interval")
            .durationType()
            .defaultValue(Duration.ofHours(1))
            .withDescription("A finding that persists is re-announced as an Event at most this often.");

    public static final ConfigOption<String> SUMMARY_SUFFIX = ConfigOptions.key(PREFIX + "summary.configmap-suffix")
            .stringType()
            .defaultValue("-lineflow-health")
            .withDescription(
                    "The JSON health summary goes to ConfigMap <deployment><suffix>, owned by the deployment.");

    public static final ConfigOption<Boolean> REMEDIATION_ENABLED = ConfigOptions.key(PREFIX + "remediation.enabled")
            .booleanType()
            .defaultValue(true)
            .withDescription(
                    "Global switch; a deployment must also carry the annotation lineflow.io/remediate: \"true\".");

    public static final ConfigOption<Duration> REMEDIATION_MIN_INTERVAL = ConfigOptions.key(
                    PREFIX + "remediation.min-interval")
            .durationType()
            .defaultValue(Duration.ofMinutes(30))
            .withDescription("Least time between two remediations of the same deployment.");

    public static final ConfigOption<Integer> REMEDIATION_CONSECUTIVE = ConfigOptions.key(
                    PREFIX + "remediation.consecutive-passes")
            .intType()
            .defaultValue(2)
            .withDescription("Passes in a row that must report DUPLICATE_CONSUMPTION before TaskManagers are rolled.");

    public static final ConfigOption<Integer> HTTP_PORT = ConfigOptions.key(PREFIX + "http.port")
            .intType()
            .defaultValue(8080)
            .withDescription("Port of /metrics, /healthz and /readyz (0 picks a free port).");

    public static final ConfigOption<Duration> CHECK_SAMPLE_GAP = ConfigOptions.key(PREFIX + "check.sample-gap")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .withDescription("`check` observes twice, this far apart, to measure rates (0: once, no rates);"
                    + " the duplicate ratio needs at least duplicate.min-sample-span.");

    // --- the continuous audit -------------------------------------------------------------------

    public static final ConfigOption<String> AUDIT_JDBC_URL = ConfigOptions.key(PREFIX + "audit.jdbc-url")
            .stringType()
            .defaultValue("")
            .withDescription("JDBC URL of the jobs' PostgreSQL database. Empty (the default): no audit. Set, the"
                    + " reconciler recounts, every audit.period, the windows of the last audit.span of every lineflow"
                    + " FlinkDeployment it watches from its topic, with its job's own settings, and diffs its"
                    + " device_window_stats (the annotation lineflow.io/audit: \"false\" leaves one out, and"
                    + " lineflow.io/audit-jdbc-url names a job's database when it is another one); the password comes"
                    + " from the env var LINEFLOW_JDBC_PASSWORD (a Secret), the session is read-only.");

    public static final ConfigOption<String> AUDIT_JDBC_USER = ConfigOptions.key(PREFIX + "audit.jdbc-user")
            .stringType()
            .defaultValue("lineflow")
            .withDescription("Database user of the audit; it needs only SELECT on device_window_stats.");

    public static final ConfigOption<Duration> AUDIT_PERIOD = ConfigOptions.key(PREFIX + "audit.period")
            .durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withDescription("Time from the end of one audit to the start of the next (at least 10 s).");

    public static final ConfigOption<Duration> AUDIT_SPAN = ConfigOptions.key(PREFIX + "audit.span")
            .durationType()
            .defaultValue(Duration.ofHours(1))
            .withDescription(
                    "The windows audited: those ending in the last span (at least 1 min; with the job's 5-min windows"
                            + " 1 h is 12 or 13 windows). The read starts lineflow.events.max-future (1 h) earlier.");

    public static final ConfigOption<Long> AUDIT_MAX_RECORDS = ConfigOptions.key(PREFIX + "audit.max-records")
            .longType()
            .defaultValue(20_000_000L)
            .withDescription("An audit that would read more records fails (the bound on its time).");

    /**
     * Settings that no longer exist, with why and what to do: setting one fails at start-up
     * rather than being ignored.
     */
    public static final Map<String, String> RETIRED = Map.of(
            PREFIX + "audit.deployment",
            "every lineflow FlinkDeployment the reconciler watches is audited now, each with its own job's"
                    + " settings (topic, group, window, lateness, limits); leave one out with the annotation"
                    + " lineflow.io/audit: \"false\". Remove the setting");

    /** The option's description as plain text. */
    public static String describe(ConfigOption<?> option) {
        return new org.apache.flink.configuration.description.HtmlFormatter().format(option.description());
    }

    /** The option's default as a person would write it ("30 s", not "PT30S"). */
    public static String defaultText(ConfigOption<?> option) {
        Object d = option.defaultValue();
        if (d instanceof Duration duration) {
            return org.apache.flink.util.TimeUtils.formatWithHighestUnit(duration);
        }
        if (d instanceof List<?> list) {
            return String.join(";", list.stream().map(String::valueOf).toList());
        }
        return String.valueOf(d);
    }

    /** All options declared above, for documentation and validation. */
    public static List<ConfigOption<?>> all() {
        List<ConfigOption<?>> out = new ArrayList<>();
        for (Field f : ReconcilerOptions.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == ConfigOption.class) {
                try {
                    out.add((ConfigOption<?>) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return out;
    }

    /**
     * Builds a configuration from {@code key=value} settings, failing on unknown keys and on values
     * that do not parse, with the key, the value and what is allowed.
     */
    public static Configuration fromMap(Map<String, String> settings) {
        List<String> known = all().stream().map(ConfigOption::key).toList();
        Configuration conf = new Configuration();
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = e.getKey().startsWith(PREFIX) ? e.getKey() : PREFIX + e.getKey();
            String retired = RETIRED.get(key);
            if (retired != null) {
                throw new IllegalArgumentException("Setting '" + key + "' (value '" + e.getValue() + "') is retired: "
                        + retired + " (env " + envVar(key) + ").");
            }
            if (!known.contains(key)) {
                throw new IllegalArgumentException(
                        "Unknown setting '" + e.getKey() + "'. Known settings: " + String.join(", ", known));
            }
            conf.setString(key, e.getValue());
        }
        for (ConfigOption<?> option : all()) {
            try {
                conf.get(option);
            } catch (RuntimeException ex) {
                throw new IllegalArgumentException(
                        "Setting '" + option.key() + "' has value '"
                                + conf.toMap().get(option.key()) + "' which does not parse: " + ex.getMessage() + " ("
                                + describe(option) + ")",
                        ex);
            }
        }
        atLeast(conf, AUDIT_PERIOD, Duration.ofSeconds(10));
        atLeast(conf, AUDIT_SPAN, Duration.ofMinutes(1));
        if (conf.get(AUDIT_MAX_RECORDS) < 1) {
            throw new IllegalArgumentException("Setting '" + AUDIT_MAX_RECORDS.key() + "' has value '"
                    + conf.get(AUDIT_MAX_RECORDS) + "'; allowed: a positive number of records ("
                    + describe(AUDIT_MAX_RECORDS) + ")");
        }
        return conf;
    }

    /**
     * LINEFLOW_RECONCILER_FLINK_REST_TIMEOUT → lineflow.reconciler.flink.rest-timeout, matched against
     * known keys and retired ones (so that a retired setting fails at start-up, not silently).
     */
    public static Map<String, String> fromEnv(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> keys =
                new ArrayList<>(all().stream().map(ConfigOption::key).toList());
        keys.addAll(RETIRED.keySet());
        for (String key : keys) {
            String var = envVar(key);
            if (env.containsKey(var)) {
                out.put(key, env.get(var));
            }
        }
        return out;
    }

    /** The environment variable that sets a key: upper-cased, other characters as '_'. */
    public static String envVar(String key) {
        return key.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    private static void atLeast(Configuration conf, ConfigOption<Duration> option, Duration least) {
        Duration value = conf.get(option);
        if (value.compareTo(least) < 0) {
            throw new IllegalArgumentException("Setting '" + option.key() + "' has value '"
                    + org.apache.flink.util.TimeUtils.formatWithHighestUnit(value) + "'; allowed: at least "
                    + org.apache.flink.util.TimeUtils.formatWithHighestUnit(least) + " (" + describe(option) + ")");
        }
    }
}
