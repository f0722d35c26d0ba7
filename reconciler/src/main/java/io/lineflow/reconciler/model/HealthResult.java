package io.lineflow.reconciler.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** The findings of one or more checks; immutable, joined with {@link #join}. */
public record HealthResult(List<Finding> findings) {

    /** Overall state, derived from the worst severity. */
    public enum Status {
        HEALTHY,
        DEGRADED,
        UNHEALTHY
    }

    private static final HealthResult HEALTHY = new HealthResult(List.of());

    public HealthResult {
        findings = List.copyOf(findings);
    }

    public static HealthResult healthy() {
        return HEALTHY;
    }

    public static HealthResult of(Finding finding) {
        return new HealthResult(List.of(finding));
    }

    /** This result plus the other's findings, worst first. */
    public HealthResult join(HealthResult other) {
        if (other.findings.isEmpty()) {
            return this;
        }
        if (findings.isEmpty()) {
            return other;
        }
        List<Finding> all = new ArrayList<>(findings);
        all.addAll(other.findings);
        all.sort(Comparator.comparing((Finding f) -> f.severity())
                .reversed()
                .thenComparing(f -> f.code().ordinal()));
        return new HealthResult(all);
    }

    /** This result without the findings of the given codes. */
    public HealthResult without(Set<FindingCode> codes) {
        return new HealthResult(
                findings.stream().filter(f -> !codes.contains(f.code())).toList());
    }

    /** The worst severity, empty when there is no finding. */
    public Optional<Severity> worst() {
        return findings.stream().map(Finding::severity).reduce(Severity::max);
    }

    public Status status() {
        return worst().map(s -> switch (s) {
                    case INFO -> Status.HEALTHY;
                    case WARNING -> Status.DEGRADED;
                    case CRITICAL -> Status.UNHEALTHY;
                })
                .orElse(Status.HEALTHY);
    }

    public boolean has(FindingCode code) {
        return findings.stream().anyMatch(f -> f.code() == code);
    }

    public Optional<Finding> find(FindingCode code) {
        return findings.stream().filter(f -> f.code() == code).findFirst();
    }

    public Set<FindingCode> codes() {
        return findings.stream().map(Finding::code).collect(Collectors.toCollection(java.util.TreeSet::new));
    }
}
