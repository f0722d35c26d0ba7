package io.lineflow.reconciler.audit;

import io.lineflow.reconciler.cli.Args;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.table.WindowTable;

import org.apache.flink.util.TimeUtils;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * `audit`: recounts every closed window from the Kafka topic ({@link WindowRecount}) and diffs
 * the result against {@code device_window_stats}: missing, extra and wrong rows, each wrong cell
 * with both values. Exit 0 when the table matches, 2 when it does not.
 */
public final class AuditCommand {
    public static final String USAGE =
            "audit --bootstrap HOST:PORT --jdbc-url URL [--jdbc-user U] [--topic device-events]\n"
                    + "      [--window " + shown(Rules.DEFAULT_WINDOW) + "] [--lateness "
                    + shown(Rules.DEFAULT_LATENESS)
                    + "] [--out-of-orderness " + shown(Rules.DEFAULT_OUT_OF_ORDERNESS) + "]\n"
                    + "      [--max-bytes " + Rules.DEFAULT_MAX_BYTES + "] [--max-future "
                    + shown(Rules.DEFAULT_MAX_FUTURE)
                    + "] [--earliest " + Rules.DEFAULT_EARLIEST + "]\n"
                    + "      [--silent-fill " + shown(Rules.DEFAULT_SILENT_FILL) + "]\n"
                    + "      (the job's settings, at the job's defaults; password: env LINEFLOW_JDBC_PASSWORD)";

    private AuditCommand() {}

    public static int run(String[] argv, PrintStream out) throws SQLException {
        Args a = Args.parse(
                argv,
                Set.of(
                        "bootstrap",
                        "jdbc-url",
                        "jdbc-user",
                        "topic",
                        "window",
                        "lateness",
                        "out-of-orderness",
                        "max-bytes",
                        "max-future",
                        "earliest",
                        "silent-fill"),
                Set.of());
        String bootstrap = a.require("bootstrap");
        String url = a.require("jdbc-url");
        Rules d = Rules.defaults();
        Rules rules = new Rules(
                duration(a.get("window", null), d.windowMillis()),
                duration(a.get("lateness", null), d.latenessMillis()),
                duration(a.get("out-of-orderness", null), d.outOfOrdernessMillis()),
                a.get("max-bytes", null) == null ? d.maxBytes() : bytes(a.get("max-bytes", null)),
                duration(a.get("max-future", null), d.maxFutureMillis()),
                a.get("earliest", null) == null ? d.earliestMillis() : instant(a.get("earliest", null)),
                duration(a.get("silent-fill", null), d.silentFillMillis()));
        long window = rules.windowMillis();
        WindowRecount.Result recount = WindowRecount.recount(read(bootstrap, a.get("topic", "device-events")), rules);
        Map<String, WindowRecount.Row> table;
        try (Connection c = DriverManager.getConnection(url, dbProps(a.get("jdbc-user", null)))) {
            table = WindowTable.read(c, recount.closedBefore() + 1 - window);
        }
        List<WindowTable.Difference> problems = WindowTable.diff(recount.rows(), table);
        out.printf(
                "audit: %d events counted from Kafka (%d invalid, %d repeated ids, %d late left out);"
                        + " %d closed windows recounted, %d rows in the table%n",
                recount.counted(),
                recount.invalid(),
                recount.duplicates(),
                recount.late(),
                recount.rows().size(),
                table.size());
        problems.forEach(out::println);
        out.println(
                problems.isEmpty()
                        ? "audit: the table matches the topic"
                        : "audit: " + problems.size() + " discrepancies");
        return problems.isEmpty() ? 0 : 2;
    }

    /** The whole topic, partition by partition, up to the end offsets as of now. */
    private static List<WindowRecount.Input> read(String bootstrap, String topic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<WindowRecount.Input> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, p.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                    if (r.offset() < end.get(new TopicPartition(topic, r.partition()))) {
                        records.add(new WindowRecount.Input(r.partition(), r.timestamp(), r.key(), r.value()));
                    }
                }
            }
        }
        return records;
    }

    /** The table's rows of the windows the recount covers: those ending by {@code closedBefore}. */
    private static Properties dbProps(String user) {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        String password = System.getenv("LINEFLOW_JDBC_PASSWORD");
        if (password != null) {
            p.setProperty("password", password);
        }
        return p;
    }

    private static int bytes(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new Args.UsageException("max-bytes " + text + ": expected a number of bytes, e.g. 65536");
        }
    }

    private static long instant(String text) {
        try {
            return Instant.parse(text.trim()).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            throw new Args.UsageException(
                    "earliest " + text + ": expected an ISO-8601 instant, e.g. 2000-01-01T00:00:00Z");
        }
    }

    private static String shown(Duration d) {
        return TimeUtils.formatWithHighestUnit(d);
    }

    /** {@code text} in milliseconds, or {@code absent} if the option was not given. */
    private static long duration(String text, long absent) {
        return text == null ? absent : duration(text);
    }

    /** Flink's duration syntax, as the job's settings are written: 500 ms, 10 s, 5 min, 7 d (or 5m, 7d). */
    static long duration(String text) {
        try {
            return TimeUtils.parseDuration(text).toMillis();
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(
                    "duration " + text + ": " + e.getMessage() + " (e.g. 500 ms, 10 s, 5 min, 7 d)");
        }
    }
}
