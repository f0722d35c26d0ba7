package io.lineflow.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.model.FlinkObservation;
import io.lineflow.reconciler.model.KafkaObservation;
import io.lineflow.reconciler.observe.FlinkRestClient;
import io.lineflow.reconciler.observe.KafkaObserver;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkDeploymentSpec;
import org.apache.flink.kubernetes.operator.api.spec.FlinkVersion;
import org.apache.flink.kubernetes.operator.api.spec.JobManagerSpec;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.Resource;
import org.apache.flink.kubernetes.operator.api.spec.TaskManagerSpec;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.apache.flink.kubernetes.operator.api.status.FlinkDeploymentStatus;
import org.apache.flink.kubernetes.operator.api.status.JobManagerDeploymentStatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
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
        public FlinkObservation observe(String restUrl, String sourceOperator, String topic) {
            boolean dup = duplicated.keySet().stream().anyMatch(d -> restUrl.contains("//" + d + "-rest"));
            Instant now = clock.instant();
            var checkpoints = new FlinkObservation.Checkpoints(true, Duration.ofSeconds(60), Duration.ofMinutes(2), 3, true,
                    50, 0, 0, 50L, now.minusSeconds(20), "s3://lineflow/checkpoints/abc/chk-50", null, null);
            var source = new FlinkObservation.Source("v1", "Source: kafka-source", 4, dup ? 200.0 : 100.0, dup ? 8 : 4, 4);
            return new FlinkObservation(restUrl, null,
                    new FlinkObservation.Job("abc", "lineflow", "RUNNING", now.minus(Duration.ofHours(2)), 0L, checkpoints, source));
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
        public KafkaObservation observe(String bootstrap, String topic, String groupId) {
            long end = 1_000_000 + (clock.millis() - start) / 10;
            return new KafkaObservation(bootstrap, topic, groupId, clock.instant(), null, 4, end, end - 500, 500L, Duration.ofDays(7));
        }
    }

    /** A FlinkDeployment shaped like lineflow's (spec only: a real server ignores status on create). */
    static FlinkDeployment flinkDeployment(String namespace, String name) {
        FlinkDeployment fd = new FlinkDeployment();
        fd.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
        FlinkDeploymentSpec spec = new FlinkDeploymentSpec();
        spec.setFlinkVersion(FlinkVersion.v1_20);
        spec.setImage("lineflow/job:test");
        spec.setServiceAccount("lineflow-flink");
        spec.setFlinkConfiguration(new HashMap<>(TestUtils.goodConf()));
        JobManagerSpec jm = new JobManagerSpec();
        jm.setReplicas(1);
        jm.setResource(new Resource(1.0, "2048m", null));
        spec.setJobManager(jm);
        TaskManagerSpec tm = new TaskManagerSpec();
        tm.setResource(new Resource(1.0, "2048m", null));
        spec.setTaskManager(tm);
        JobSpec job = new JobSpec();
        job.setJarURI("local:///opt/flink/usrlib/lineflow-job.jar");
        job.setParallelism(4);
        job.setUpgradeMode(UpgradeMode.LAST_STATE);
        spec.setJob(job);
        fd.setSpec(spec);
        return fd;
    }

    /** The status the operator would write for a running job. */
    static FlinkDeploymentStatus runningStatus() {
        FlinkDeploymentStatus status = new FlinkDeploymentStatus();
        status.setJobManagerDeploymentStatus(JobManagerDeploymentStatus.READY);
        var js = new org.apache.flink.kubernetes.operator.api.status.JobStatus();
        js.setState(JobStatus.RUNNING);
        js.setJobId("abc");
        status.setJobStatus(js);
        return status;
    }
}
