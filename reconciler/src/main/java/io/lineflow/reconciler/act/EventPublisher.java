package io.lineflow.reconciler.act;

import static io.lineflow.reconciler.ReconcilerOptions.EVENT_REPEAT_INTERVAL;

import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Severity;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Publishes findings as Kubernetes Events on the FlinkDeployment: once when a finding appears or
 * changes severity, again only after the repeat interval, and a Normal event when it clears.
 */
public final class EventPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(EventPublisher.class);
    public static final String COMPONENT = "lineflow-reconciler";
    private static final int MAX_MESSAGE = 1000;

    private final KubernetesClient client;
    private final Duration repeat;
    private final Clock clock;
    /** (deployment key → finding key → what was last announced). */
    private final Map<DeploymentKey, Map<String, Announced>> announced = new ConcurrentHashMap<>();

    private final java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();

    private record Announced(Severity severity, Instant at) {}

    public EventPublisher(KubernetesClient client, Configuration conf, Clock clock) {
        this.client = client;
        this.repeat = conf.get(EVENT_REPEAT_INTERVAL);
        this.clock = clock;
    }

    /** Events written so far (created or updated). */
    public long written() {
        return written.get();
    }

    public void publish(FlinkDeployment fd, HealthResult result) {
        Map<String, Announced> mine = announced.computeIfAbsent(DeploymentKey.of(fd), k -> new ConcurrentHashMap<>());
        Instant now = clock.instant();
        Set<String> present = new HashSet<>();
        for (Finding f : result.findings()) {
            String fkey = findingKey(f);
            if (!present.add(fkey)) {
                continue;
            }
            Announced prev = mine.get(fkey);
            if (prev != null
                    && prev.severity() == f.severity()
                    && Duration.between(prev.at(), now).compareTo(repeat) < 0) {
                continue;
            }
            if (write(
                    fd,
                    fkey,
                    f.code().name(),
                    f.severity() == Severity.INFO ? "Normal" : "Warning",
                    "[" + f.severity() + "] " + f.message())) {
                mine.put(fkey, new Announced(f.severity(), now));
            }
        }
        for (String gone : new HashSet<>(mine.keySet())) {
            if (!present.contains(gone)) {
                String code = gone.contains(":") ? gone.substring(0, gone.indexOf(':')) : gone;
                write(fd, gone + "-resolved", code + "_RESOLVED", "Normal", code + " is no longer observed.");
                mine.remove(gone);
            }
        }
    }

    /** Records a one-off event, e.g. a remediation. */
    public boolean record(FlinkDeployment fd, String reason, String type, String message) {
        return write(fd, reason + "-" + clock.millis(), reason, type, message);
    }

    /** Forgets deployments that no longer exist. */
    public void retainOnly(Set<DeploymentKey> keys) {
        announced.keySet().retainAll(keys);
    }

    private static String findingKey(Finding f) {
        Object source = f.evidence().get("source");
        return source == null ? f.code().name() : f.code().name() + ":" + source;
    }

    private boolean write(FlinkDeployment fd, String key, String reason, String type, String message) {
        String ns = fd.getMetadata().getNamespace();
        String name = (fd.getMetadata().getName() + ".lineflow."
                + key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-"));
        if (name.length() > 253) {
            name = name.substring(0, 253);
        }
        String msg = message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) + "…" : message;
        String now = clock.instant().toString();
        try {
            var events = client.v1().events().inNamespace(ns);
            Event existing = events.withName(name).get();
            if (existing == null) {
                events.resource(new EventBuilder()
                                .withNewMetadata()
                                .withName(name)
                                .withNamespace(ns)
                                .endMetadata()
                                .withInvolvedObject(new ObjectReferenceBuilder()
                                        .withApiVersion(fd.getApiVersion())
                                        .withKind(fd.getKind())
                                        .withName(fd.getMetadata().getName())
                                        .withNamespace(ns)
                                        .withUid(fd.getMetadata().getUid())
                                        .build())
                                .withReason(reason)
                                .withMessage(msg)
                                .withType(type)
                                .withCount(1)
                                .withFirstTimestamp(now)
                                .withLastTimestamp(now)
                                .withNewSource()
                                .withComponent(COMPONENT)
                                .endSource()
                                .withReportingComponent("lineflow.io/reconciler")
                                .build())
                        .create();
            } else {
                int count = existing.getCount() == null ? 1 : existing.getCount() + 1;
                events.withName(name)
                        .edit(e -> new EventBuilder(e)
                                .withMessage(msg)
                                .withType(type)
                                .withCount(count)
                                .withLastTimestamp(now)
                                .build());
            }
            written.incrementAndGet();
            return true;
        } catch (KubernetesClientException e) {
            LOG.warn("Could not write event {} in {}: {}", name, ns, e.getMessage());
            return false;
        }
    }
}
