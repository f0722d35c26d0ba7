package io.lineflow.k8s;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.observe.FlinkRestClient;
import io.lineflow.reconciler.observe.KafkaObserver;

import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.Resource;
import org.apache.flink.kubernetes.operator.api.spec.TaskManagerSpec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Stand-ins for what a real API server cannot give: Flink REST, Kafka, time; and a deployment like lineflow's. */
final class Fakes {

    private Fakes() {}

    /** Flink REST: a healthy running job, or one whose Kafka readers read every partition twice. */
    static final class FlinkRest implements FlinkRestClient {
        private final Clock clock;
        private final Map<String, Boolean> duplicated = new ConcurrentHashMap<>();

        FlinkRest(Clock clock) {
            this.clock = clock;
        }

        void duplicate(String deployment) {
            duplicated.put(deployment, true);
        }

        @Override
        public FlinkObservation observe(String restUrl, String topic) {
            boolean dup = duplicated.keySet().stream().anyMatch(d -> restUrl.contains("//" + d + "-rest"));
            Instant now = clock.instant();
            var checkpoints = new FlinkObservation.Checkpoints(
                    true,
                    Duration.ofSeconds(60),
                    Duration.ofMinutes(2),
                    3,
                    true,
                    50,
                    0,
                    0,
                    50L,
                    now.minusSeconds(20),
                    "s3://lineflow/checkpoints/abc/chk-50",
                    null,
                    null);
            var source = new FlinkObservation.Source(
                    "v1",
                    "Source: kafka-source",
                    4,
                    KafkaReader.KAFKA_SOURCE,
                    java.util.Set.of("device-events"),
                    dup ? 200.0 : 100.0,
                    dup ? 8 : 4,
                    TestUtils.partitions("device-events", 0, 1, 2, 3));
            return new FlinkObservation(
                    restUrl,
                    null,
                    new FlinkObservation.Job(
                            "abc",
                            "lineflow",
                            org.apache.flink.api.common.JobStatus.RUNNING,
                            now.minus(Duration.ofHours(2)),
                            0L,
                            checkpoints,
                            java.util.List.of(source),
                            java.util.Set.of()));
        }
    }

    /** Kafka: a 4-partition topic produced at 100 records/s, read with a steady lag. */
    static final class Kafka implements KafkaObserver {
        private final Clock clock;
        private final long start;

        Kafka(Clock clock) {
            this.clock = clock;
            this.start = clock.millis();
        }

        @Override
        public KafkaObservation observe(String bootstrap, Collection<String> topics, String groupId) {
            long end = 1_000_000 + (clock.millis() - start) / 10;
            return new KafkaObservation(
                    bootstrap,
                    List.copyOf(topics),
                    groupId,
                    clock.instant(),
                    null,
                    4,
                    end,
                    end - 500,
                    500L,
                    Duration.ofDays(7));
        }

        /** Never asked for: the fake job's topic has no dot. */
        @Override
        public Optional<Set<String>> topicNames(String bootstrap) {
            throw new UnsupportedOperationException("the fake broker lists no topics");
        }
    }

    /**
     * A FlinkDeployment shaped like lineflow's, run by the lineflow-flink ServiceAccount, with
     * resources (the CRD schema wants them) and no status (a real server ignores it on create).
     */
    static FlinkDeployment flinkDeployment(String namespace, String name) {
        FlinkDeployment fd = TestUtils.flinkDeployment(namespace, name);
        fd.setStatus(null);
        fd.getSpec().setServiceAccount("lineflow-flink");
        fd.getSpec().getJobManager().setResource(new Resource(1.0, "2048m", null));
        TaskManagerSpec tm = new TaskManagerSpec();
        tm.setResource(new Resource(1.0, "2048m", null));
        fd.getSpec().setTaskManager(tm);
        return fd;
    }
}
