package io.lineflow.reconciler.model;

/**
 * The continuous audit of one deployment as a pass sees it: the latest completed audit of its
 * table, or why it cannot be audited now.
 *
 * @param latest the latest completed audit, {@code null} when none completed or it cannot be audited
 * @param notAudited why it cannot be audited (its settings, or where the reconciler's connection
 *     leads), {@code null} when it can
 */
public record AuditStatus(AuditReport latest, String notAudited) {
    /** A completed audit. */
    public static AuditStatus completed(AuditReport report) {
        return new AuditStatus(report, null);
    }

    /** A deployment the audit cannot judge, and why. */
    public static AuditStatus notAudited(String why) {
        return new AuditStatus(null, why);
    }
}
