package io.lineflow.drill.kubernetes;

import io.lineflow.flinkrest.FlinkRest;
import io.lineflow.flinkrest.JobDetails;
import io.lineflow.flinkrest.ReaderPartition;
import io.lineflow.flinkrest.TaskManager;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The job as its leading JobManager's REST API describes it: the leader as Kubernetes HA names it
 * ({@link ClusterPods#leader}), the job by the id the operator reports ({@link
 * DeploymentResource#jobId}). Not the operator's view, which lags by its observer's cadence.
 */
final class LeaderRest {
    private static final int REST_PORT = 8081;

    /** The REST API's base address of the JobManager at a pod IP, as the pod serves it. */
    static final Function<String, URI> AT_POD_IP = ip -> URI.create("http://" + ip + ":" + REST_PORT);

    private final FlinkRest rest = new FlinkRest(Duration.ofSeconds(5));
    private final DeploymentResource deployment;
    private final ClusterPods pods;
    private final Function<String, URI> restAt;

    /**
     * With {@code restAt} giving the REST API's base address of the JobManager at a pod IP: tests
     * answer on loopback what a pod would on its IP.
     */
    LeaderRest(DeploymentResource deployment, ClusterPods pods, Function<String, URI> restAt) {
        this.deployment = deployment;
        this.pods = pods;
        this.restAt = restAt;
    }

    /** Checkpoints the job has completed, as its leading JobManager says; empty without an answer. */
    Optional<Long> completedCheckpoints() {
        return ofJob((base, job) -> rest.checkpoints(base, job).counts().completed());
    }

    /**
     * Since when the job runs, as its leading JobManager's REST API says ({@code timestamps.RUNNING}
     * of {@code /jobs/<id>}, which a restart or a new leader's recovery sets anew); empty while
     * there is no leader, no job or no answer.
     */
    Optional<Long> runningSince() {
        return ofJob((base, job) -> rest.job(base, job).runningSince()).filter(since -> since > 0);
    }

    /**
     * The partitions of {@code topic} that the job's Kafka source readers have been given, as the
     * leading JobManager's REST API lists their metrics (a reader registers a partition's metrics
     * in the same step in which it seeks to the partition's starting offset); empty while there is
     * no leader, no job or no answer.
     */
    Optional<Set<Integer>> readerPartitions(String topic) {
        return ofJob((base, job) -> {
            Set<Integer> partitions = new TreeSet<>();
            for (JobDetails.Vertex v : rest.job(base, job).vertices()) {
                rest.readerPartitions(base, job, v.id()).stream()
                        .filter(r -> r.topic().equals(ReaderPartition.listedName(topic)))
                        .forEach(r -> partitions.add(r.partition()));
            }
            return partitions;
        });
    }

    /**
     * The names of the TaskManager pods that run tasks, as the leading JobManager's REST API lists
     * them (under native Kubernetes a TaskManager's id is its pod's name); empty while there is no
     * leader or no answer. A spare TaskManager (slotmanager.redundant-taskmanager-num) is not one.
     */
    List<String> busyTaskManagers() {
        return fromLeader(base -> rest.taskManagers(base).stream()
                        .filter(TaskManager::busy)
                        .map(TaskManager::id)
                        .toList())
                .orElse(List.of());
    }

    /** A call about the job the operator reports; empty while it reports none (no JobManager is asked). */
    private <T> Optional<T> ofJob(JobCall<T> call) {
        String job = deployment.jobId();
        if (job.isEmpty()) {
            return Optional.empty();
        }
        return fromLeader(base -> call.at(base, job));
    }

    /** A call to the leading JobManager's REST API; empty while there is no leader or no answer. */
    private <T> Optional<T> fromLeader(RestCall<T> call) {
        Optional<String> ip = pods.leader().map(p -> p.getStatus().getPodIP());
        if (ip.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(call.at(restAt.apply(ip.get()).toString()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private interface RestCall<T> {
        T at(String base) throws IOException;
    }

    private interface JobCall<T> {
        T at(String base, String job) throws IOException;
    }
}
