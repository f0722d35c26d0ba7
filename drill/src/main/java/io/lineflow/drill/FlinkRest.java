package io.lineflow.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
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

/** The parts of Flink's REST API the drill uses, as a user's tooling would call them. */
final class FlinkRest {
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    /** GET; empty when the endpoint is down or answers with an error. */
    Optional<JsonNode> get(String url) {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(json.readTree(r.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    JsonNode post(String url, HttpRequest.BodyPublisher body, String contentType) throws IOException {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(120))
                            .header("Content-Type", contentType)
                            .POST(body)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() >= 300) {
                throw new IOException("POST " + url + " answered " + r.statusCode() + ": " + r.body());
            }
            return json.readTree(r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Uploads the job jar ({@code POST /jars/upload}); returns the jar id. */
    String uploadJar(String base, Path jar) throws IOException {
        String boundary = "drill-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                        + jar.getFileName() + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        body.write(Files.readAllBytes(jar));
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        JsonNode r = post(
                base + "/jars/upload",
                HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()),
                "multipart/form-data; boundary=" + boundary);
        String file = r.path("filename").asText();
        return file.substring(file.lastIndexOf('/') + 1);
    }

    /** Runs the uploaded jar ({@code POST /jars/:id/run}); returns the job id. */
    String runJar(String base, String jarId, List<String> args, int parallelism, String restoreFrom)
            throws IOException {
        ObjectNode req = json.createObjectNode();
        req.put("entryClass", "io.lineflow.job.LineflowJob");
        req.put("parallelism", parallelism);
        args.forEach(req.putArray("programArgsList")::add);
        if (restoreFrom != null) {
            req.put("savepointPath", restoreFrom);
            req.put("allowNonRestoredState", false); // every piece of state must find its operator
        }
        JsonNode r = post(
                base + "/jars/" + jarId + "/run",
                HttpRequest.BodyPublishers.ofString(json.writeValueAsString(req)),
                "application/json");
        return r.path("jobid").asText();
    }

    /** {@code POST /jobs/:id/stop} and waits for the savepoint; returns its path. */
    String stopWithSavepoint(String base, String jobId, String dir) throws IOException {
        ObjectNode req = json.createObjectNode();
        req.put("targetDirectory", dir);
        req.put("drain", false);
        String trigger = post(
                        base + "/jobs/" + jobId + "/stop",
                        HttpRequest.BodyPublishers.ofString(json.writeValueAsString(req)),
                        "application/json")
                .path("request-id")
                .asText();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<JsonNode> s = get(base + "/jobs/" + jobId + "/savepoints/" + trigger);
            if (s.isPresent() && s.get().path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = s.get().path("operation");
                if (op.has("failure-cause")) {
                    throw new IOException("stop-with-savepoint failed: " + op.path("failure-cause"));
                }
                return op.path("location").asText();
            }
            sleep(250);
        }
        throw new IOException("stop-with-savepoint did not complete within 2 minutes");
    }

    /** The job's state, and whether every task runs; empty if the endpoint cannot tell. */
    Optional<JobStatus> job(String base, String jobId) {
        return get(base + "/jobs/" + jobId).map(j -> {
            boolean allRunning = j.path("vertices").size() > 0;
            for (JsonNode v : j.path("vertices")) {
                allRunning &= v.path("status").asText().equals("RUNNING");
            }
            return new JobStatus(
                    j.path("state").asText(),
                    allRunning,
                    j.path("timestamps").path("RUNNING").asLong());
        });
    }

    int taskManagers(String base) {
        return get(base + "/taskmanagers")
                .map(j -> j.path("taskmanagers").size())
                .orElse(0);
    }

    /** A job's state as the REST API reports it. */
    static final class JobStatus {
        final String state;
        final boolean allTasksRunning;
        final long runningSince;

        JobStatus(String state, boolean allTasksRunning, long runningSince) {
            this.state = state;
            this.allTasksRunning = allTasksRunning;
            this.runningSince = runningSince;
        }

        boolean running() {
            return state.equals("RUNNING") && allTasksRunning;
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
