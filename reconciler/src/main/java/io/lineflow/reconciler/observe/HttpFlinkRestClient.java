package io.lineflow.reconciler.observe;

import io.lineflow.flinkrest.CheckpointConfig;
import io.lineflow.flinkrest.CheckpointStats;
import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.flinkrest.JobOverview;
import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.flinkrest.Metric;
import io.lineflow.flinkrest.ReaderPartition;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.FlinkObservation.Checkpoints;
import io.lineflow.reconciler.model.FlinkObservation.Job;
import io.lineflow.reconciler.model.FlinkObservation.Source;

import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** {@link FlinkRestClient} over lineflow's {@link FlinkRest} client, with a timeout on every call. */
public final class HttpFlinkRestClient implements FlinkRestClient {

    /**
     * Which of the jobs a cluster lists is the one to observe: a RUNNING job, else one that is not
     * finished yet (created, restarting, ...), else the newest. A cluster lists the jobs it ran
     * before (cancelled, failed over to a new id) beside the current one; the current one may not
     * be RUNNING yet, and the old one must not be read for it.
     */
    private static final Comparator<JobOverview> JOB_CHOICE = Comparator.<JobOverview>comparingInt(
                    j -> j.state() == JobStatus.RUNNING ? 2 : terminal(j) ? 0 : 1)
            .thenComparingLong(JobOverview::startTime);

    /** A source operator's output rate as a vertex's subtask metrics list it: Flink names a source "Source: …". */
    private static final Pattern SOURCE_OPERATOR_RATE = Pattern.compile("^(Source__.+)\\.numRecordsOutPerSecond$");

    private final FlinkRest rest;

    public HttpFlinkRestClient(Duration timeout) {
        this.rest = new FlinkRest(timeout);
    }

    @Override
    public FlinkObservation observe(String restUrl, String topic) {
        try {
            Optional<JobOverview> chosen = rest.jobs(restUrl).stream().max(JOB_CHOICE);
            if (chosen.isEmpty()) {
                return new FlinkObservation(restUrl, null, null);
            }
            JobOverview job = chosen.get();
            String jobPath = "/jobs/" + job.id();
            JobDetails details = rest.job(restUrl, job.id());
            Long restarts = metric(rest.metrics(restUrl, jobPath + "/metrics", List.of("numRestarts"), null));
            Job observed = new Job(
                    job.id(),
                    job.name(),
                    job.state(),
                    job.startTime() > 0 ? Instant.ofEpochMilli(job.startTime()) : null,
                    restarts,
                    checkpoints(restUrl, job.id()),
                    kafkaSources(restUrl, job.id(), details, topic),
                    Set.of());
            return new FlinkObservation(restUrl, null, observed);
        } catch (InterruptedIOException e) {
            return FlinkObservation.failed(restUrl, "interrupted");
        } catch (IOException | RuntimeException e) {
            return FlinkObservation.failed(restUrl, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static boolean terminal(JobOverview job) {
        return job.state() != null && job.state().isGloballyTerminalState();
    }

    private Checkpoints checkpoints(String restUrl, String jobId) throws IOException {
        Optional<CheckpointConfig> config = rest.checkpointConfig(restUrl, jobId);
        if (config.isEmpty()) {
            return Checkpoints.disabled();
        }
        CheckpointConfig cfg = config.get();
        CheckpointStats stats = rest.checkpoints(restUrl, jobId);
        CheckpointStats.Checkpoint completed = stats.latest().completed();
        CheckpointStats.Checkpoint failed = stats.latest().failed();
        return Checkpoints.builder()
                .config(
                        Duration.ofMillis(cfg.interval()),
                        cfg.timeout() == null ? null : Duration.ofMillis(cfg.timeout()),
                        cfg.tolerableFailedCheckpoints(),
                        cfg.externalization() == null
                                ? null
                                : cfg.externalization().enabled())
                .completed(stats.counts().completed())
                .failed(stats.counts().failed())
                .inProgress(stats.counts().inProgress())
                .latestCompleted(
                        completed == null ? null : completed.id(),
                        completed == null || completed.completedAt() <= 0
                                ? null
                                : Instant.ofEpochMilli(completed.completedAt()),
                        completed == null ? null : completed.externalPath())
                .latestFailed(
                        failed == null || failed.failureTimestamp() <= 0
                                ? null
                                : Instant.ofEpochMilli(failed.failureTimestamp()),
                        failed == null ? null : failed.failureMessage())
                .build();
    }

    /**
     * Every Kafka reader of the job, one per reading operator with every topic it reads (as the
     * metric listing names them): recognised by the per-partition metric its kind registers
     * ({@link KafkaReader}), not by its name, so a second source added under any name is counted
     * too. When {@code topic} is named and none of them reads it, the job's one source vertex is
     * taken as its reader ({@link KafkaReader#SOURCE_VERTEX}): the deployment's word for a reader
     * lineflow does not know.
     */
    private List<Source> kafkaSources(String restUrl, String jobId, JobDetails details, String topic)
            throws IOException {
        List<Source> recognised = recognisedReaders(restUrl, jobId, details);
        String listed = topic == null ? null : ReaderPartition.listedName(topic);
        if (topic == null || recognised.stream().anyMatch(s -> s.topics().contains(listed))) {
            return recognised;
        }
        List<String> sourceVertices = details.sourceVertexIds();
        if (sourceVertices.size() != 1) {
            return recognised; // several sources, or no plan: which one reads the topic is unknown
        }
        Optional<JobDetails.Vertex> vertex = details.vertices().stream()
                .filter(v -> v.id().equals(sourceVertices.get(0)))
                .findFirst();
        Optional<String> operator = vertex.isEmpty()
                ? Optional.empty()
                : rest
                        .metrics(
                                restUrl,
                                "/jobs/" + jobId + "/vertices/" + vertex.get().id() + "/subtasks/metrics",
                                List.of(),
                                null)
                        .stream()
                        .map(m -> SOURCE_OPERATOR_RATE.matcher(m.id()))
                        .filter(Matcher::matches)
                        .map(m -> m.group(1))
                        .findFirst();
        if (operator.isEmpty()) {
            return recognised;
        }
        List<Source> all = new ArrayList<>(recognised);
        JobDetails.Vertex v = vertex.get();
        all.add(new Source(
                v.id(),
                v.name(),
                v.parallelism(),
                KafkaReader.SOURCE_VERTEX,
                Set.of(topic),
                outputRate(restUrl, jobId, v.id(), operator.get()),
                0,
                Set.of()));
        return all;
    }

    /**
     * Every reading operator of the job that a {@link KafkaReader} metric names, with all the
     * topics it reads: its output rate is what they give together.
     */
    private List<Source> recognisedReaders(String restUrl, String jobId, JobDetails details) throws IOException {
        List<Source> sources = new ArrayList<>();
        for (JobDetails.Vertex vertex : details.vertices()) {
            Map<List<Object>, List<ReaderPartition>> readers = new LinkedHashMap<>();
            for (ReaderPartition r : rest.readerPartitions(restUrl, jobId, vertex.id())) {
                readers.computeIfAbsent(List.of(r.reader(), r.operator()), k -> new ArrayList<>())
                        .add(r);
            }
            for (List<ReaderPartition> assignments : readers.values()) {
                ReaderPartition any = assignments.get(0);
                sources.add(new Source(
                        vertex.id(),
                        vertex.name(),
                        vertex.parallelism(),
                        any.reader(),
                        assignments.stream().map(ReaderPartition::topic).collect(Collectors.toSet()),
                        outputRate(restUrl, jobId, vertex.id(), any.operator()),
                        (int) assignments.stream()
                                .map(r -> List.of(r.subtask(), r.topic(), r.partition()))
                                .distinct()
                                .count(),
                        assignments.stream()
                                .map(r -> new TopicPartition(r.topic(), r.partition()))
                                .collect(Collectors.toSet())));
            }
        }
        return sources;
    }

    /** The reading operator's own output rate, summed over subtasks: its reader metrics sit in its group. */
    private Double outputRate(String restUrl, String jobId, String vertexId, String operator) throws IOException {
        Double rate = null;
        for (Metric m : rest.metrics(
                restUrl,
                "/jobs/" + jobId + "/vertices/" + vertexId + "/subtasks/metrics",
                List.of(operator + ".numRecordsOutPerSecond"),
                "sum")) {
            if (m.sum() != null) {
                rate = m.sum();
            }
        }
        return rate;
    }

    /** The first metric's value as a whole number; {@code null} if absent or not a number. */
    private static Long metric(List<Metric> metrics) {
        for (Metric m : metrics) {
            if (m.value() != null) {
                try {
                    return (long) Double.parseDouble(m.value());
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
