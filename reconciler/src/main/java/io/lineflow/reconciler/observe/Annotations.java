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

    private Annotations() {}
}
