package io.lineflow.flinkrest;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.apache.flink.api.common.JobStatus;

import java.util.List;
import java.util.Map;

/**
 * A job as {@code GET /jobs/:id} describes it: its state, when it entered each state, and its
 * vertices (chains of operators) with their aggregated task state.
 *
 * @param timestamps epoch milliseconds at which the job entered each state, by state name
 */
public record JobDetails(
        @JsonProperty("jid") String id,
        String name,
        JobStatus state,
        Map<String, Long> timestamps,
        List<Vertex> vertices) {

    public JobDetails {
        timestamps = timestamps == null ? Map.of() : timestamps;
        vertices = vertices == null ? List.of() : vertices;
    }

    /** One vertex; {@code status} is its aggregated execution state ({@code RUNNING}, ...). */
    public record Vertex(String id, String name, int parallelism, String status) {}

    /** When the job last became RUNNING (epoch ms), or 0 if it never did. */
    public long runningSince() {
        return timestamps.getOrDefault(JobStatus.RUNNING.name(), 0L);
    }

    /**
     * RUNNING with every vertex's tasks running: the job can make progress. A job is RUNNING while
     * its tasks are still being deployed, so the state alone does not say that.
     */
    public boolean running() {
        return state == JobStatus.RUNNING
                && !vertices.isEmpty()
                && vertices.stream().allMatch(v -> "RUNNING".equals(v.status()));
    }
}
