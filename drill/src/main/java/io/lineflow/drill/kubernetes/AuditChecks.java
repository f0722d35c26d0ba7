package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.core.TableCheck;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * What the reconciler's continuous audit (which recounts the table from Kafka on its own, with
 * rules' one recount) must say after a scenario, read from its metrics.
 *
 * @param deadline until an audit that began after a moment has completed (the e2e overlay's audit
 *     period is 30 s; a pass reads the drill's whole topic in a few seconds)
 */
record AuditChecks(ReconcilerMetrics reconciler, Duration deadline, Consumer<String> log) {
    /**
     * After a healthy scenario: a pass completed after {@code since} with rows judged and none
     * missing, extra or wrong.
     */
    void exact(String id, long since, ScenarioResult result) {
        Optional<ReconcilerMetrics.Audit> audit = after(since);
        if (audit.isEmpty()) {
            result.problems.add(
                    "AUDIT no continuous audit completed within " + deadline.toMinutes() + " min of the input's end");
            return;
        }
        ReconcilerMetrics.Audit a = audit.get();
        result.monitoring.add("continuous audit after the scenario: " + a);
        log.accept("  " + id + ": the continuous audit: " + a);
        if (a.mismatched() > 0 || a.matched() == 0) {
            result.problems.add("AUDIT the continuous audit disagrees with the exact table: " + a);
        }
    }

    /**
     * The additive-sink control's damage is wrong rows (counts added to, not replaced); the audit
     * must report them itself, in an audit that began after the verifier read the table (an
     * earlier one may predate the replay). Missing rows would be another control's: a lost count.
     * Not caught is the control's error.
     */
    void caughtDoubling(long since, ScenarioResult result) {
        Optional<ReconcilerMetrics.Audit> a = after(since);
        if (a.isPresent() && a.get().wrong() > 0) {
            result.monitoring.add("the continuous audit caught the additive sink: " + a.get());
            log.accept("  the continuous audit caught the additive sink: " + a.get());
        } else if (result.error == null) {
            result.error = "the continuous audit did not report the additive sink's wrong rows: "
                    + a.map(Object::toString).orElse("no audit completed");
        }
    }

    /**
     * A row of the table changed by hand is reported as one wrong row by the audit that follows,
     * and the row put back is exact again in the audit after that. Leaves the table as it found it.
     */
    void handEdit(TableCheck.Database db, ScenarioResult result) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("UPDATE device_window_stats SET pieces_produced ="
                        + " pieces_produced + ? WHERE (device_id, window_start) = (SELECT device_id, window_start"
                        + " FROM device_window_stats ORDER BY window_start, device_id LIMIT 1)")) {
            s.setInt(1, 1);
            long edited = System.currentTimeMillis();
            if (s.executeUpdate() != 1) {
                result.problems.add("AUDIT the hand edit found no row to change");
                return;
            }
            Optional<ReconcilerMetrics.Audit> seen = after(edited);
            String took = DrillReport.seconds(System.currentTimeMillis() - edited);
            if (seen.isEmpty() || seen.get().wrong() != 1) {
                result.problems.add("AUDIT a row changed by hand was not reported as one wrong row by the audit"
                        + " that followed: " + seen.map(Object::toString).orElse("no audit completed"));
            } else {
                result.monitoring.add("a row changed by hand: reported by the audit " + took + " later: " + seen.get());
                log.accept("  a row changed by hand: the audit " + took + " later reports " + seen.get());
            }
            s.setInt(1, -1);
            s.executeUpdate();
        }
        long restored = System.currentTimeMillis();
        Optional<ReconcilerMetrics.Audit> back = after(restored);
        if (back.isEmpty() || back.get().mismatched() > 0) {
            result.problems.add("AUDIT the row put back was not exact again in the next audit: "
                    + back.map(Object::toString).orElse("no audit completed"));
        }
    }

    /** The first audit that began after {@code since} (epoch ms), polled until the deadline. */
    private Optional<ReconcilerMetrics.Audit> after(long since) {
        AtomicReference<ReconcilerMetrics.Audit> seen = new AtomicReference<>();
        Await.until(deadline, Await.pollWithin(deadline, Duration.ofSeconds(2)), () -> {
            reconciler.audit().filter(a -> a.began() * 1000 > since).ifPresent(seen::set);
            return seen.get() != null;
        });
        return Optional.ofNullable(seen.get());
    }
}
