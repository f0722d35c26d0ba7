package io.lineflow.flinkrest;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The client of Flink's REST API that every part of lineflow uses: the reconciler reads through it,
 * the drills also act through it as a user's tooling would (upload and run the job jar, stop with a
 * savepoint). One instance serves any number of clusters: each call names the REST address
 * ({@code http://host:port}) it goes to, and each has the timeout given at construction (uploads and
 * runs, which wait for the cluster, get longer). An HTTP error is a {@link FlinkRestException};
 * an interrupted call an {@link InterruptedIOException} with the thread's interrupt flag set again.
 */
public final class FlinkRest {
    /** Uploading a jar and running it wait for the JobManager to compile and submit the job. */
    private static final Duration SUBMIT_TIMEOUT = Duration.ofMinutes(2);

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL, true);

    private final HttpClient http;
    private final Duration timeout;

    public FlinkRest(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** {@code GET /jobs/overview}: every job the cluster knows, finished ones included. */
    public List<JobOverview> jobs(String base) throws IOException {
        JsonNode jobs = get(base, "/jobs/overview").path("jobs");
        return JSON.convertValue(jobs, new TypeReference<List<JobOverview>>() {});
    }

    /** {@code GET /jobs/:id}. */
    public JobDetails job(String base, String jobId) throws IOException {
        return JSON.treeToValue(get(base, "/jobs/" + jobId), JobDetails.class);
    }

    /** {@code GET /jobs/:id/checkpoints/config}; empty when checkpointing is off (Flink answers 404). */
    public Optional<CheckpointConfig> checkpointConfig(String base, String jobId) throws IOException {
        return find(base, "/jobs/" + jobId + "/checkpoints/config")
                .map(c -> JSON.convertValue(c, CheckpointConfig.class))
                .filter(CheckpointConfig::enabled);
    }

    /** {@code GET /jobs/:id/checkpoints}; {@link CheckpointStats#NONE} when there are none (404). */
    public CheckpointStats checkpoints(String base, String jobId) throws IOException {
        return find(base, "/jobs/" + jobId + "/checkpoints")
                .map(c -> JSON.convertValue(c, CheckpointStats.class))
                .orElse(CheckpointStats.NONE);
    }

    /**
     * The metrics of {@code path} (e.g. {@code /jobs/:id/metrics}, {@code
     * /jobs/:id/vertices/:vid/subtasks/metrics}): without {@code names} the ids of those available;
     * with names, their values, or the aggregates {@code agg} ({@code sum}, {@code max}, ...) when
     * not null.
     */
    public List<Metric> metrics(String base, String path, List<String> names, String agg) throws IOException {
        StringBuilder query = new StringBuilder();
        if (!names.isEmpty()) {
            query.append("?get=").append(URLEncoder.encode(String.join(",", names), StandardCharsets.UTF_8));
            if (agg != null) {
                query.append("&agg=").append(URLEncoder.encode(agg, StandardCharsets.UTF_8));
            }
        }
        return JSON.convertValue(get(base, path + query), new TypeReference<List<Metric>>() {});
    }

    /**
     * The Kafka partitions the readers of a vertex read ({@link KafkaReader} says by which metric of each kind), from its metric
     * listing; empty for a vertex without a Kafka reader, or before its readers are given partitions.
     */
    public List<ReaderPartition> readerPartitions(String base, String jobId, String vertexId) throws IOException {
        return metrics(base, "/jobs/" + jobId + "/vertices/" + vertexId + "/metrics", List.of(), null).stream()
                .flatMap(m -> ReaderPartition.of(m.id()).stream())
                .toList();
    }

    /** {@code GET /taskmanagers}: the registered TaskManagers. */
    public List<TaskManager> taskManagers(String base) throws IOException {
        return JSON.convertValue(
                get(base, "/taskmanagers").path("taskmanagers"), new TypeReference<List<TaskManager>>() {});
    }

    /** Whether a REST endpoint answers at all ({@code GET /config}, which needs no leader). */
    public boolean answers(String base) {
        try {
            get(base, "/config");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Uploads a job jar ({@code POST /jars/upload}); returns the jar's id on that cluster. */
    public String uploadJar(String base, Path jar) throws IOException {
        String boundary = "lineflow-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                        + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        body.write(Files.readAllBytes(jar));
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        String file = post(
                        base,
                        "/jars/upload",
                        HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()),
                        "multipart/form-data; boundary=" + boundary)
                .path("filename")
                .asText();
        return file.substring(file.lastIndexOf('/') + 1);
    }

    /**
     * Runs an uploaded jar ({@code POST /jars/:id/run}); returns the job id. With a savepoint or
     * retained checkpoint to restore from, every piece of its state must find its operator (no
     * non-restored state allowed).
     */
    public String runJar(
            String base, String jarId, String entryClass, List<String> args, int parallelism, String restoreFrom)
            throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("entryClass", entryClass);
        req.put("parallelism", parallelism);
        args.forEach(req.putArray("programArgsList")::add);
        if (restoreFrom != null) {
            req.put("savepointPath", restoreFrom);
            req.put("allowNonRestoredState", false);
        }
        return post(base, "/jars/" + jarId + "/run", json(req), "application/json")
                .path("jobid")
                .asText();
    }

    /**
     * Stops a job with a savepoint in {@code dir} ({@code POST /jobs/:id/stop}, without draining) and
     * waits up to {@code wait} for it; returns the savepoint's path.
     */
    public String stopWithSavepoint(String base, String jobId, String dir, Duration wait) throws IOException {
        ObjectNode req = JSON.createObjectNode();
        req.put("targetDirectory", dir);
        req.put("drain", false);
        String trigger = post(base, "/jobs/" + jobId + "/stop", json(req), "application/json")
                .path("request-id")
                .asText();
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode s = get(base, "/jobs/" + jobId + "/savepoints/" + trigger);
            if (s.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = s.path("operation");
                if (op.has("failure-cause")) {
                    throw new IOException(
                            "stop-with-savepoint of " + jobId + " failed: " + firstLine(op.path("failure-cause")));
                }
                return op.path("location").asText();
            }
            pause(Duration.ofMillis(250));
        }
        throw new IOException("stop-with-savepoint of " + jobId + " did not complete within " + wait);
    }

    /**
     * What an operation's {@code failure-cause} says in one line: the first of its stack trace (the
     * exception and its message, which for Flink's wrapped exceptions names the cause too), not the
     * whole trace and the serialized exception the object also carries.
     */
    static String firstLine(JsonNode failureCause) {
        String trace = failureCause.path("stack-trace").asText("");
        return trace.lines()
                .filter(l -> !l.isBlank())
                .findFirst()
                .orElse(failureCause.path("class").asText(failureCause.toString()));
    }

    /** {@code GET}: the answer's JSON; an HTTP error other than 200 is a {@link FlinkRestException}. */
    private JsonNode get(String base, String path) throws IOException {
        HttpResponse<String> r = send(
                HttpRequest.newBuilder(uri(base, path)).timeout(timeout).GET().build());
        if (r.statusCode() != 200) {
            throw new FlinkRestException("GET", r.uri().toString(), r.statusCode(), r.body());
        }
        return JSON.readTree(r.body());
    }

    /** {@code GET} where 404 means "there is none": empty then. */
    private Optional<JsonNode> find(String base, String path) throws IOException {
        try {
            return Optional.of(get(base, path));
        } catch (FlinkRestException e) {
            if (e.status() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private JsonNode post(String base, String path, HttpRequest.BodyPublisher body, String contentType)
            throws IOException {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri(base, path))
                .timeout(SUBMIT_TIMEOUT)
                .header("Content-Type", contentType)
                .POST(body)
                .build());
        if (r.statusCode() >= 300) {
            throw new FlinkRestException("POST", r.uri().toString(), r.statusCode(), r.body());
        }
        return JSON.readTree(r.body());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted: " + request.method() + " " + request.uri());
        }
    }

    private static HttpRequest.BodyPublisher json(ObjectNode body) throws IOException {
        return HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
    }

    /** {@code base} with or without a trailing slash, then the path. */
    private static URI uri(String base, String path) {
        return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
    }

    private static void pause(Duration d) throws InterruptedIOException {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a savepoint");
        }
    }
}
