package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.DeploymentKey;
import io.lineflow.reconciler.model.Sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Earlier samples per deployment, bounded by age, for the rate and trend checks. */
public final class HistoryStore {

    private final Duration retention;
    private final Map<DeploymentKey, Deque<Sample>> samples = new ConcurrentHashMap<>();

    public HistoryStore(Duration retention) {
        this.retention = retention;
    }

    /** Samples of the deployment, oldest first. */
    public List<Sample> get(DeploymentKey key) {
        Deque<Sample> d = samples.get(key);
        if (d == null) {
            return List.of();
        }
        synchronized (d) {
            return List.copyOf(d);
        }
    }

    public void add(DeploymentKey key, Sample sample) {
        Deque<Sample> d = samples.computeIfAbsent(key, k -> new ArrayDeque<>());
        synchronized (d) {
            d.addLast(sample);
            Instant cutoff = sample.at().minus(retention);
            while (!d.isEmpty() && d.peekFirst().at().isBefore(cutoff)) {
                d.removeFirst();
            }
        }
    }

    /** Forgets deployments that no longer exist. */
    public void retainOnly(Collection<DeploymentKey> keys) {
        samples.keySet().retainAll(keys);
    }
}
