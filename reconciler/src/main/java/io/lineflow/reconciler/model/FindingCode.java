package io.lineflow.reconciler.model;

/** Every code the reconciler can report; the names are part of its public interface. */
public enum FindingCode {
    // Spec checks: evaluated from the FlinkDeployment alone, also offline by `lint`.
    CHECKPOINTING_DISABLED(Kind.SPEC),
    /** No interval in the spec: the operator's last-state default of 5 minutes applies (INFO). */
    CHECKPOINT_INTERVAL_DEFAULTED(Kind.SPEC),
    CHECKPOINT_STORAGE_NOT_DURABLE(Kind.SPEC),
    CHECKPOINTS_NOT_RETAINED(Kind.SPEC),
    UPGRADE_MODE_STATELESS(Kind.SPEC),
    HA_DISABLED(Kind.SPEC),
    SAVEPOINT_DIR_MISSING(Kind.SPEC),
    RESTART_STRATEGY_NONE(Kind.SPEC),
    // Runtime checks: need Kubernetes status, the Flink REST API and Kafka.
    JOB_NOT_RUNNING(Kind.RUNTIME),
    RESTART_LOOP(Kind.RUNTIME),
    CHECKPOINT_STALE(Kind.RUNTIME),
    CHECKPOINT_FAILURES(Kind.RUNTIME),
    CHECKPOINT_NOT_EXTERNAL(Kind.RUNTIME),
    KAFKA_RETENTION_TOO_SHORT(Kind.RUNTIME),
    CONSUMER_LAG_GROWING(Kind.RUNTIME),
    DUPLICATE_CONSUMPTION(Kind.RUNTIME),
    /**
     * The running job's consumption could not be judged for double reads (no Kafka reader
     * recognised, no topic, Kafka or a rate not observed): INFO, so that no job is silently healthy.
     */
    DUPLICATES_NOT_JUDGED(Kind.RUNTIME),
    /** An observer (Flink REST, Kafka) could not be read, so some runtime checks were skipped. */
    OBSERVATION_FAILED(Kind.RUNTIME),
    /** The continuous audit found rows of the window table that differ from the topic's recount. */
    AUDIT_MISMATCH(Kind.RUNTIME),
    /**
     * A lineflow deployment the continuous audit cannot judge: its job's settings are not valid or
     * cannot be read, or the reconciler's connection leads to another topic or table than its job's.
     */
    AUDIT_NOT_RUN(Kind.RUNTIME);

    /** Whether a code comes from the spec alone or from runtime observation. */
    public enum Kind {
        SPEC,
        RUNTIME
    }

    private final Kind kind;

    FindingCode(Kind kind) {
        this.kind = kind;
    }

    /** Spec or runtime. */
    public Kind kind() {
        return kind;
    }
}
