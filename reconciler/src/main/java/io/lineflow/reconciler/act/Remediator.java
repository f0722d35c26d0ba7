package io.lineflow.reconciler.act;

import static io.lineflow.reconciler.ReconcilerOptions.REMEDIATION_CONSECUTIVE;
import static io.lineflow.reconciler.ReconcilerOptions.REMEDIATION_ENABLED;
import static io.lineflow.reconciler.ReconcilerOptions.REMEDIATION_MIN_INTERVAL;

import io.lineflow.reconciler.checks.DuplicateConsumptionCheck;
import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.observe.Annotations;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opt-in remediation: when DUPLICATE_CONSUMPTION persists on a deployment annotated
 * {@code lineflow.io/remediate: "true"}, and rests on evidence that a restart of the readers ends
 * ({@link DuplicateConsumptionCheck#remediable}), deletes its TaskManager pods (and nothing else) so
 * Flink restarts the readers, at most once per minimum interval, and records an Event. A double
 * read that the job's own shape makes is only reported: rolling would not end it.
 */
public final class Remediator {

    private static final Logger LOG = LoggerFactory.getLogger(Remediator.class);
    public static final String REASON = "RemediationRestartedTaskManagers";

    private final KubernetesClient client;
    private final EventPublisher events;
    private final boolean enabled;
    private final Duration minInterval;
    private final int consecutive;
    private final Clock clock;
    private final Map<DeploymentKey, Integer> streaks = new ConcurrentHashMap<>();
    private final Map<DeploymentKey, Instant> lastAction = new ConcurrentHashMap<>();

    public Remediator(KubernetesClient client, EventPublisher events, Configuration conf, Clock clock) {
        this.client = client;
        this.events = events;
        this.enabled = conf.get(REMEDIATION_ENABLED);
        this.minInterval = conf.get(REMEDIATION_MIN_INTERVAL);
        this.consecutive = conf.get(REMEDIATION_CONSECUTIVE);
        this.clock = clock;
    }

    /** Acts if due; returns the names of the deleted pods, empty if nothing was done. */
    public Optional<List<String>> maybeRemediate(FlinkDeployment fd, HealthResult result) {
        String ns = fd.getMetadata().getNamespace();
        String name = fd.getMetadata().getName();
        DeploymentKey key = DeploymentKey.of(fd);
        Map<String, String> ann = fd.getMetadata().getAnnotations();
        boolean optedIn = ann != null
                && "true"
                        .equalsIgnoreCase(
                                String.valueOf(ann.get(Annotations.REMEDIATE)).trim());
        if (!enabled || !optedIn || !DuplicateConsumptionCheck.remediable(result)) {
            streaks.remove(key);
            return Optional.empty();
        }
        int streak = streaks.merge(key, 1, Integer::sum);
        if (streak < consecutive) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        Instant last = lastAction.get(key);
        if (last != null && Duration.between(last, now).compareTo(minInterval) < 0) {
            LOG.info("Remediation of {} is rate-limited until {}", key, last.plus(minInterval));
            return Optional.empty();
        }
        List<String> deleted = new ArrayList<>();
        try {
            List<Pod> pods = client.pods()
                    .inNamespace(ns)
                    .withLabel("app", name)
                    .withLabel("component", "taskmanager")
                    .list()
                    .getItems();
            for (Pod p : pods) {
                Map<String, String> labels = p.getMetadata().getLabels();
                // Re-check: never delete anything but this deployment's TaskManagers.
                if (labels == null
                        || !name.equals(labels.get("app"))
                        || !"taskmanager".equals(labels.get("component"))) {
                    continue;
                }
                client.pods()
                        .inNamespace(ns)
                        .withName(p.getMetadata().getName())
                        .delete();
                deleted.add(p.getMetadata().getName());
            }
        } catch (KubernetesClientException e) {
            LOG.warn("Remediation of {} failed: {}", key, e.getMessage());
            events.record(
                    fd,
                    "RemediationFailed",
                    "Warning",
                    "Rolling the TaskManagers after DUPLICATE_CONSUMPTION failed: " + e.getMessage());
            lastAction.put(key, now);
            return Optional.empty();
        }
        lastAction.put(key, now);
        streaks.remove(key);
        events.record(
                fd,
                REASON,
                "Warning",
                "DUPLICATE_CONSUMPTION persisted for " + streak + " passes; deleted TaskManager pods " + deleted
                        + " so the Kafka readers restart from the last checkpoint. Compare the windows written since the duplication began. "
                        + "Next remediation allowed after " + now.plus(minInterval) + ".");
        return Optional.of(deleted);
    }
}
