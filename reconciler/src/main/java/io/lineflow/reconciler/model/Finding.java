package io.lineflow.reconciler.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** One problem found by one check: code, severity, an actionable message and the figures behind it. */
public record Finding(FindingCode code, Severity severity, String message, Map<String, Object> evidence) {

    public Finding {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        evidence = Collections.unmodifiableMap(new LinkedHashMap<>(evidence == null ? Map.of() : evidence));
    }

    /** This finding alone as a result. */
    public HealthResult asResult() {
        return HealthResult.of(this);
    }

    /** Starts a finding; add evidence with {@link Builder#with}. */
    public static Builder of(FindingCode code, Severity severity, String message) {
        return new Builder(code, severity, message);
    }

    /** Collects evidence figures in insertion order, skipping nulls. */
    public static final class Builder {
        private final FindingCode code;
        private final Severity severity;
        private final String message;
        private final Map<String, Object> evidence = new LinkedHashMap<>();

        private Builder(FindingCode code, Severity severity, String message) {
            this.code = code;
            this.severity = severity;
            this.message = message;
        }

        public Builder with(String key, Object value) {
            if (value != null) {
                evidence.put(key, value);
            }
            return this;
        }

        public Finding build() {
            return new Finding(code, severity, message, evidence);
        }
    }
}
