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
        List<Vertex> vertices,
        Plan plan) {

    public JobDetails {
        timestamps = timestamps == null ? Map.of() : timestamps;
        vertices = vertices == null ? List.of() : vertices;
        plan = plan == null ? new Plan(List.of()) : plan;
    }

    /** One vertex; {@code status} is its aggregated execution state ({@code RUNNING}, ...). */
    public record Vertex(String id, String name, int parallelism, String status) {}

    /** The job's plan: its vertices as nodes, each with the vertices it reads from. */
    public record Plan(List<Node> nodes) {
        public Plan {
            nodes = nodes == null ? List.of() : nodes;
        }
    }

    /** A vertex of the plan; {@code inputs} is empty for a source vertex. */
    public record Node(String id, List<Input> inputs) {
        public Node {
            inputs = inputs == null ? List.of() : inputs;
        }
    }

    /** One input of a node: the vertex it reads from. */
    public record Input(String id) {}

    /** The ids of the vertices that read from no other vertex: the job's sources. */
    public List<String> sourceVertexIds() {
        return plan.nodes().stream()
                .filter(n -> n.inputs().isEmpty())
                .map(Node::id)
                .toList();
    }

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
