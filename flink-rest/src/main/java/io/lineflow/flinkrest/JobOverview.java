package io.lineflow.flinkrest;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.apache.flink.api.common.JobStatus;

/**
 * A job as {@code GET /jobs/overview} lists it.
 *
 * @param state {@code null} for a state this Flink version does not know
 * @param startTime epoch milliseconds, or a negative number before the job started
 */
public record JobOverview(
        @JsonProperty("jid") String id,
        String name,
        JobStatus state,
        @JsonProperty("start-time") long startTime) {}
