package io.lineflow.reconciler.observe;

/** Annotations on a FlinkDeployment that the reconciler reads. */
public final class Annotations {
    public static final String PREFIX = "lineflow.io/";
    /** {@code "true"} enables remediation for this deployment. */
    public static final String REMEDIATE = PREFIX + "remediate";

    public static final String KAFKA_TOPIC = PREFIX + "kafka-topic";
    public static final String KAFKA_BOOTSTRAP = PREFIX + "kafka-bootstrap";
    public static final String KAFKA_GROUP = PREFIX + "kafka-group";
    public static final String REST_URL = PREFIX + "rest-url";

    /**
     * {@code "false"} leaves a lineflow deployment out of the continuous audit (every other one the
     * reconciler watches is audited, with its own settings).
     */
    public static final String AUDIT = PREFIX + "audit";

    /**
     * The JDBC URL the audit reads this deployment's table through, instead of the reconciler's
     * {@code audit.jdbc-url}: for a job whose database is another one (the reconciler's user and
     * password still apply).
     */
    public static final String AUDIT_JDBC_URL = PREFIX + "audit-jdbc-url";

    private Annotations() {}
}
