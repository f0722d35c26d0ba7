package io.lineflow.reconciler.checks;

import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.AuditStatus;
import io.lineflow.reconciler.model.Finding;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.rules.table.WindowTable.Difference;

import org.apache.flink.configuration.Configuration;

import java.time.Clock;
import java.time.Instant;

/**
 * The continuous audit's verdict on the deployment, from the audit's status in its observation:
 * AUDIT_MISMATCH when its latest completed audit recounted the windows from Kafka, with the
 * deployment's own settings, and rows of its table differ; AUDIT_NOT_RUN when it cannot be audited
 * now, with why.
 */
public final class AuditCheck implements Check {
    private static final int EXAMPLES = 5;

    @Override
    public HealthResult evaluate(Observation o, Configuration conf, Clock clock) {
        AuditStatus status = o.audit();
        if (status == null) {
            return HealthResult.healthy();
        }
        if (status.notAudited() != null) {
            return Finding.of(
                            FindingCode.AUDIT_NOT_RUN,
                            Severity.WARNING,
                            "The continuous audit cannot judge this deployment's table: " + status.notAudited()
                                    + ". Until it can, a wrong row goes unseen.")
                    .with("reason", status.notAudited())
                    .build()
                    .asResult();
        }
        AuditReport r = status.latest();
        if (r == null || r.clean()) {
            return HealthResult.healthy();
        }
        long missing = r.rows(Difference.Kind.MISSING);
        long extra = r.rows(Difference.Kind.EXTRA);
        long wrong = r.rows(Difference.Kind.WRONG);
        return Finding.of(
                        FindingCode.AUDIT_MISMATCH,
                        Severity.CRITICAL,
                        String.format(
                                "The audit recounted the windows since %s from Kafka and %d rows of"
                                        + " device_window_stats differ (%d missing, %d extra, %d wrong), e.g. %s."
                                        + " The figures written are not the topic's: look for a restart or a"
                                        + " DUPLICATE_CONSUMPTION at that time, or a change by hand; `audit --span`"
                                        + " lists every row and cell.",
                                Instant.ofEpochMilli(r.from()),
                                missing + extra + wrong,
                                missing,
                                extra,
                                wrong,
                                String.join(
                                        "; ",
                                        r.differences().stream()
                                                .limit(EXAMPLES)
                                                .map(Difference::toString)
                                                .toList())))
                .with("missing", missing)
                .with("extra", extra)
                .with("wrong", wrong)
                .with("matched", r.matched())
                .with("notJudged", r.unjudged().size())
                .with("from", Instant.ofEpochMilli(r.from()).toString())
                .with("auditedAt", r.at().toString())
                .build()
                .asResult();
    }
}
