package io.lineflow.reconciler.observe;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake Flink REST API over real HTTP: canned JSON per path (optionally path?query), 404 for the
 * rest, and an optional hold on every answer to provoke client timeouts.
 */
public final class TestingFlinkRestServer implements AutoCloseable {

    private final HttpServer server;
    private final Map<String, String> bodies = new ConcurrentHashMap<>();
    /**
     * How long a held request waits for {@link #release()} at most: far beyond any client timeout
     * under test, so a client without one fails its test (it gets an answer) instead of hanging it.
     */
    private static final long HOLD_MAX_SECONDS = 30;

    private volatile CountDownLatch hold = new CountDownLatch(0);
    private final AtomicInteger answered = new AtomicInteger();

    public TestingFlinkRestServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            try {
                hold.await(HOLD_MAX_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String path = ex.getRequestURI().getPath();
            String query = ex.getRequestURI().getRawQuery();
            String body = query == null ? bodies.get(path) : bodies.getOrDefault(path + "?" + query, bodies.get(path));
            int status = body == null ? 404 : 200;
            byte[] bytes = (body == null ? "{\"errors\":[\"Not found: " + path + "\"]}" : body)
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, bytes.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(bytes);
            }
            answered.incrementAndGet();
        });
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public TestingFlinkRestServer on(String pathAndQuery, String json) {
        bodies.put(pathAndQuery, json);
        return this;
    }

    public TestingFlinkRestServer remove(String pathAndQuery) {
        bodies.remove(pathAndQuery);
        return this;
    }

    /** Holds every request unanswered until {@link #release()} or {@link #close()}. */
    public void hold() {
        hold = new CountDownLatch(1);
    }

    /** Answers the held requests and those to come. */
    public void release() {
        hold.countDown();
    }

    /** How many requests have been answered so far. */
    public int answered() {
        return answered.get();
    }

    /**
     * A RUNNING job "j1" with a Kafka source vertex read by {@code parallelism} readers over
     * {@code partitions}; when {@code doubled}, every partition is assigned to two readers.
     */
    public TestingFlinkRestServer runningJob(long nowMillis, double sourceRate, int partitions, boolean doubled) {
        on(
                "/jobs/overview",
                "{\"jobs\":[{\"jid\":\"j0\",\"name\":\"old\",\"state\":\"CANCELED\",\"start-time\":"
                        + (nowMillis - 7_200_000)
                        + "},{\"jid\":\"j1\",\"name\":\"lineflow\",\"state\":\"RUNNING\",\"start-time\":"
                        + (nowMillis - 3_600_000) + "}]}");
        on(
                "/jobs/j1",
                "{\"jid\":\"j1\",\"name\":\"lineflow\",\"state\":\"RUNNING\",\"vertices\":["
                        + "{\"id\":\"v1\",\"name\":\"Source: kafka-source -> parse-events\",\"parallelism\":2},"
                        + "{\"id\":\"v2\",\"name\":\"device-windows -> Sink: postgres-sink\",\"parallelism\":2}]}");
        on("/jobs/j1/metrics?get=numRestarts", "[{\"id\":\"numRestarts\",\"value\":\"2\"}]");
        on(
                "/jobs/j1/checkpoints/config",
                "{\"mode\":\"exactly_once\",\"interval\":60000,\"timeout\":120000,\"min_pause\":10000,"
                        + "\"max_concurrent\":1,\"externalization\":{\"enabled\":true,\"delete_on_cancellation\":false},\"tolerable_failed_checkpoints\":3}");
        on(
                "/jobs/j1/checkpoints",
                "{\"counts\":{\"restored\":0,\"total\":13,\"in_progress\":1,\"completed\":11,\"failed\":1},"
                        + "\"latest\":{\"completed\":{\"id\":12,\"status\":\"COMPLETED\",\"trigger_timestamp\":"
                        + (nowMillis - 31_000)
                        + ",\"latest_ack_timestamp\":" + (nowMillis - 30_000)
                        + ",\"external_path\":\"file:/flink-data/checkpoints/j1/chk-12\"},"
                        + "\"savepoint\":null,\"failed\":{\"id\":7,\"failure_timestamp\":" + (nowMillis - 600_000)
                        + ",\"failure_message\":\"Checkpoint expired before completing.\"},\"restored\":null},\"history\":[]}");
        on(
                "/jobs/j1/vertices/v1/subtasks/metrics",
                "[{\"id\":\"numRecordsOutPerSecond\"},{\"id\":\"Source__kafka-source.numRecordsOutPerSecond\"},"
                        + "{\"id\":\"parse-events.numRecordsOutPerSecond\"}]");
        on(
                "/jobs/j1/vertices/v1/subtasks/metrics?get=Source__kafka-source.numRecordsOutPerSecond&agg=sum",
                "[{\"id\":\"Source__kafka-source.numRecordsOutPerSecond\",\"sum\":" + sourceRate + "}]");
        on(
                "/jobs/j1/vertices/v1/subtasks/metrics?get=numRecordsOutPerSecond&agg=sum",
                "[{\"id\":\"numRecordsOutPerSecond\",\"sum\":999.0}]");
        StringBuilder m = new StringBuilder("[{\"id\":\"0.numRecordsIn\"}");
        for (int p = 0; p < partitions; p++) {
            int reader = p % 2;
            m.append(",{\"id\":\"")
                    .append(reader)
                    .append(".Source__kafka-source.KafkaSourceReader.topic.device-events.partition.")
                    .append(p)
                    .append(".currentOffset\"}");
            if (doubled) {
                m.append(",{\"id\":\"")
                        .append(1 - reader)
                        .append(".Source__kafka-source.KafkaSourceReader.topic.device-events.partition.")
                        .append(p)
                        .append(".currentOffset\"}");
            }
        }
        on("/jobs/j1/vertices/v1/metrics", m.append("]").toString());
        on(
                "/jobs/j1/vertices/v2/metrics",
                "[{\"id\":\"0.numRecordsIn\"},{\"id\":\"0.device-windows.numRecordsOutPerSecond\"}]");
        return this;
    }

    /**
     * Adds to {@link #runningJob} a second source vertex "v3" under a name that says nothing about
     * Kafka, whose {@code readers} readers each read every one of {@code partitions} partitions.
     */
    public TestingFlinkRestServer secondKafkaSource(double sourceRate, int partitions, int readers) {
        on(
                "/jobs/j1",
                "{\"jid\":\"j1\",\"name\":\"lineflow\",\"state\":\"RUNNING\",\"vertices\":["
                        + "{\"id\":\"v1\",\"name\":\"Source: kafka-source -> parse-events\",\"parallelism\":2},"
                        + "{\"id\":\"v3\",\"name\":\"Source: replayed-events\",\"parallelism\":" + readers + "},"
                        + "{\"id\":\"v2\",\"name\":\"device-windows -> Sink: postgres-sink\",\"parallelism\":2}]}");
        on(
                "/jobs/j1/vertices/v3/subtasks/metrics?get=Source__replayed-events.numRecordsOutPerSecond&agg=sum",
                "[{\"id\":\"Source__replayed-events.numRecordsOutPerSecond\",\"sum\":" + sourceRate + "}]");
        StringBuilder m = new StringBuilder("[{\"id\":\"0.numRecordsIn\"}");
        for (int r = 0; r < readers; r++) {
            for (int p = 0; p < partitions; p++) {
                m.append(",{\"id\":\"")
                        .append(r)
                        .append(".Source__replayed-events.KafkaSourceReader.topic.device-events.partition.")
                        .append(p)
                        .append(".currentOffset\"}");
            }
        }
        on("/jobs/j1/vertices/v3/metrics", m.append("]").toString());
        return this;
    }

    /**
     * Makes "j1" a job whose one source vertex "v1" reads Kafka through a reader lineflow does not
     * recognise (no per-partition metric), emitting {@code sourceRate} records/s; with {@code
     * secondSource}, a second vertex without inputs beside it.
     */
    public TestingFlinkRestServer unrecognisedSource(double sourceRate, boolean secondSource) {
        on(
                "/jobs/j1",
                "{\"jid\":\"j1\",\"name\":\"team-job\",\"state\":\"RUNNING\",\"vertices\":["
                        + "{\"id\":\"v1\",\"name\":\"Source: Custom Source -> map\",\"parallelism\":2},"
                        + "{\"id\":\"v2\",\"name\":\"Sink: jdbc\",\"parallelism\":2}],"
                        + "\"plan\":{\"nodes\":[{\"id\":\"v1\"},{\"id\":\"v2\",\"inputs\":[{\"id\":\"v1\"}]}"
                        + (secondSource ? ",{\"id\":\"v9\"}" : "")
                        + "]}}");
        on(
                "/jobs/j1/vertices/v1/metrics",
                "[{\"id\":\"0.numRecordsIn\"},{\"id\":\"0.Source__Custom_Source.numRecordsOut\"}]");
        on("/jobs/j1/vertices/v2/metrics", "[{\"id\":\"0.numRecordsIn\"}]");
        on(
                "/jobs/j1/vertices/v1/subtasks/metrics",
                "[{\"id\":\"numRecordsOutPerSecond\"},{\"id\":\"Source__Custom_Source.numRecordsOutPerSecond\"},"
                        + "{\"id\":\"map.numRecordsOutPerSecond\"}]");
        on(
                "/jobs/j1/vertices/v1/subtasks/metrics?get=Source__Custom_Source.numRecordsOutPerSecond&agg=sum",
                "[{\"id\":\"Source__Custom_Source.numRecordsOutPerSecond\",\"sum\":" + sourceRate + "}]");
        return this;
    }

    @Override
    public void close() {
        release(); // a held request would keep the server's one thread, which stop() joins
        server.stop(0);
    }
}
