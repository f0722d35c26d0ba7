package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Checkpoints;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.FlinkObservation.Source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.api.common.JobStatus;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@link FlinkRestClient} over the JDK HTTP client, with a timeout on every call. */
public final class HttpFlinkRestClient implements FlinkRestClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Checkpointing off shows as an interval of Long.MAX_VALUE (or a 404) in Flink's REST API. */
    private static final long DISABLED_INTERVAL = Long.MAX_VALUE / 2;
    /**
     * A KafkaSource reader's per-partition metric in a vertex's listing:
     * {@code <subtask>.<operator>.KafkaSourceReader.topic.<topic>.partition.<p>.currentOffset}.
     */
    private static final Pattern READER_PARTITION =
            Pattern.compile("^(\\d+)\\.(.+)\\.KafkaSourceReader\\.topic\\.(.+)\\.partition\\.(\\d+)\\.currentOffset$");

    /**
     * Which of the jobs a cluster lists is the one to observe: a RUNNING job, else one that is not
     * finished yet (created, restarting, ...), else the newest. A cluster lists the jobs it ran
     * before (cancelled, failed over to a new id) beside the current one; the current one may not
     * be RUNNING yet, and the old one must not be read for it.
     */
    private static final Comparator<JsonNode> JOB_CHOICE = Comparator.<JsonNode>comparingInt(
                    j -> "RUNNING".equals(j.path("state").asText()) ? 2 : terminal(j) ? 0 : 1)
            .thenComparingLong(j -> j.path("start-time").asLong());

    private final HttpClient http;
    private final Duration timeout;

    public HttpFlinkRestClient(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    @Override
    public FlinkObservation observe(String restUrl, String topic) {
        String base = restUrl.endsWith("/") ? restUrl.substring(0, restUrl.length() - 1) : restUrl;
        try {
            JsonNode overview = get(base + "/jobs/overview");
            JsonNode chosen = null;
            for (JsonNode j : overview.path("jobs")) {
                if (chosen == null || JOB_CHOICE.compare(j, chosen) > 0) {
                    chosen = j;
                }
            }
            if (chosen == null) {
                return new FlinkObservation(restUrl, null, null);
            }
            String jid = chosen.path("jid").asText();
            String jobBase = base + "/jobs/" + jid;
            JsonNode details = get(jobBase);
            Long restarts = metric(get(jobBase + "/metrics?get=numRestarts"), "numRestarts", "value");
            Checkpoints checkpoints = checkpoints(jobBase);
            List<Source> sources = kafkaSources(jobBase, details, topic);
            long start = chosen.path("start-time").asLong(-1);
            return new FlinkObservation(
                    restUrl,
                    null,
                    new Job(
                            jid,
                            chosen.path("name").asText(null),
                            chosen.hasNonNull("state")
                                    ? JobStatus.valueOf(chosen.path("state").asText())
                                    : null,
                            start > 0 ? Instant.ofEpochMilli(start) : null,
                            restarts,
                            checkpoints,
                            sources));
        } catch (IOException | RuntimeException e) {
            return FlinkObservation.failed(restUrl, e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return FlinkObservation.failed(restUrl, "interrupted");
        }
    }

    private static boolean terminal(JsonNode job) {
        String state = job.path("state").asText();
        return Arrays.stream(JobStatus.values()).anyMatch(s -> s.name().equals(state) && s.isGloballyTerminalState());
    }

    private Checkpoints checkpoints(String jobBase) throws IOException, InterruptedException {
        Response cfgResp = fetch(jobBase + "/checkpoints/config");
        if (cfgResp.status == 404) {
            return Checkpoints.disabled();
        }
        JsonNode cfg = cfgResp.json();
        long intervalMs = cfg.path("interval").asLong(-1);
        if (intervalMs <= 0 || intervalMs >= DISABLED_INTERVAL) {
            return Checkpoints.disabled();
        }
        Response statsResp = fetch(jobBase + "/checkpoints");
        JsonNode stats = statsResp.status == 404 ? JSON.createObjectNode() : statsResp.json();
        JsonNode counts = stats.path("counts");
        JsonNode completed = stats.path("latest").path("completed");
        JsonNode failed = stats.path("latest").path("failed");
        boolean hasCompleted = completed.isObject() && completed.has("id");
        boolean hasFailed = failed.isObject() && failed.has("id");
        long completedAt = hasCompleted
                ? completed
                        .path("latest_ack_timestamp")
                        .asLong(completed.path("trigger_timestamp").asLong())
                : 0;
        return new Checkpoints(
                true,
                Duration.ofMillis(intervalMs),
                cfg.has("timeout") ? Duration.ofMillis(cfg.path("timeout").asLong()) : null,
                cfg.has("tolerable_failed_checkpoints")
                        ? cfg.path("tolerable_failed_checkpoints").asInt()
                        : null,
                cfg.path("externalization").has("enabled")
                        ? cfg.path("externalization").path("enabled").asBoolean()
                        : null,
                counts.path("completed").asLong(0),
                counts.path("failed").asLong(0),
                counts.path("in_progress").asLong(0),
                hasCompleted ? completed.path("id").asLong() : null,
                hasCompleted && completedAt > 0 ? Instant.ofEpochMilli(completedAt) : null,
                hasCompleted && !completed.path("external_path").isNull()
                        ? completed.path("external_path").asText(null)
                        : null,
                hasFailed && failed.path("failure_timestamp").asLong(0) > 0
                        ? Instant.ofEpochMilli(failed.path("failure_timestamp").asLong())
                        : null,
                hasFailed ? failed.path("failure_message").asText(null) : null);
    }

    /**
     * Every vertex whose readers report per-partition offsets for {@code topic}: Kafka sources are
     * recognised by what they measure, not by their name, so a second source added under any name
     * is counted too.
     */
    private List<Source> kafkaSources(String jobBase, JsonNode details, String topic)
            throws IOException, InterruptedException {
        List<Source> sources = new ArrayList<>();
        for (JsonNode vertex : details.path("vertices")) {
            String vbase = jobBase + "/vertices/" + vertex.path("id").asText();
            String operator = null;
            Set<String> assignments = new HashSet<>();
            Set<Integer> partitions = new TreeSet<>();
            for (JsonNode m : get(vbase + "/metrics")) {
                Matcher mm = READER_PARTITION.matcher(m.path("id").asText());
                if (mm.matches() && (topic == null || mm.group(3).equals(topic))) {
                    operator = mm.group(2);
                    assignments.add(mm.group(1) + "/" + mm.group(4));
                    partitions.add(Integer.parseInt(mm.group(4)));
                }
            }
            if (operator == null) {
                continue;
            }
            // The source operator's own output rate: the reader metrics sit in its metric group.
            Double rate = null;
            String rateMetric = operator + ".numRecordsOutPerSecond";
            for (JsonNode m : get(vbase + "/subtasks/metrics?get="
                    + URLEncoder.encode(rateMetric, StandardCharsets.UTF_8) + "&agg=sum")) {
                if (m.has("sum")) {
                    rate = m.path("sum").asDouble();
                }
            }
            sources.add(new Source(
                    vertex.path("id").asText(),
                    vertex.path("name").asText(),
                    vertex.path("parallelism").asInt(0),
                    rate,
                    assignments.size(),
                    partitions));
        }
        return sources;
    }

    private static Long metric(JsonNode list, String id, String field) {
        for (JsonNode m : list) {
            if (id.equals(m.path("id").asText()) && m.has(field)) {
                try {
                    return (long) Double.parseDouble(m.path(field).asText());
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }

    private JsonNode get(String url) throws IOException, InterruptedException {
        Response r = fetch(url);
        if (r.status != 200) {
            throw new IOException("HTTP " + r.status + " from " + url);
        }
        return r.json();
    }

    private Response fetch(String url) throws IOException, InterruptedException {
        HttpRequest req =
                HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
        HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        return new Response(resp.statusCode(), resp.body());
    }

    private record Response(int status, String body) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }
}
