package io.lineflow.drill;

/** What the drill does to the running job. */
enum Fault {
    /** kill -9 of a TaskManager; a replacement starts, as Kubernetes would restart the pod. */
    TM_KILL("tm-kill"),
    /** kill -9 of the leading JobManager; the standby takes over through ZooKeeper HA. */
    JM_FAILOVER("jm-failover"),
    /** Every Flink process and ZooKeeper killed; a fresh cluster restores the retained checkpoint. */
    FULL_RESTART("full-restart"),
    /** PostgreSQL down for 15 s, then back on the same data. */
    DB_OUTAGE("db-outage"),
    /** The Kafka broker stopped and started again on the same data. */
    KAFKA_RESTART("kafka-restart"),
    /** Stop-with-savepoint, then a new submission restored from it at parallelism 4. */
    UPGRADE("upgrade");

    final String id;

    Fault(String id) {
        this.id = id;
    }

    static Fault byId(String id) {
        for (Fault f : values()) {
            if (f.id.equals(id)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown fault '" + id
                + "'; known: tm-kill, jm-failover, full-restart, db-outage," + " kafka-restart, upgrade, all");
    }
}
