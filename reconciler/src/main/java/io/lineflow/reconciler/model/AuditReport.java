package io.lineflow.reconciler.model;

import io.lineflow.rules.table.WindowTable.Difference;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One audit's outcome: the rows judged (matched, missing, extra, wrong), the windows not judged with
 * their reason, and what was read.
 *
 * @param from the first window start audited; {@code Long.MIN_VALUE} for the whole topic
 * @param closedBefore the recount's watermark at the read's end
 * @param matched judged rows equal in the table and the recount
 * @param differences every difference, as {@link io.lineflow.rules.table.WindowTable#diff} gives them
 * @param unjudged each window key not judged, with its reason
 * @param downtimeNotJudged judged rows whose {@code downtime_seconds} alone was not judged (the carry)
 */
public record AuditReport(
        Instant at,
        long from,
        long closedBefore,
        long recordsRead,
        long counted,
        long invalid,
        long duplicates,
        long late,
        String offsets,
        long matched,
        List<Difference> differences,
        Map<String, Unjudged> unjudged,
        long downtimeNotJudged,
        Duration took) {

    /** Why a window was left unjudged: never a mismatch, never a match. */
    public enum Reason {
        /** Not final at the read's end: the job may still change the row. */
        OPEN(
                "not final yet: the recount's watermark at the read's end has not passed the window's end"
                        + " plus the allowed lateness (or its end, reading to the end offsets), so the job may still change it"),
        /** A silent stopped window whose stop may have begun before the read. */
        CARRY("a stopped window with no events, whose stop began before the read: whether a stop was open"
                + " is not in the span"),
        /** The read cannot see all it needs (retention, the job's group). */
        READ("the read cannot cover the span");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        /** What the reason means, for a person. */
        public String text() {
            return text;
        }
    }

    /** A window not judged: the reason and, for {@link Reason#READ}, what the read lacked. */
    public record Unjudged(Reason reason, String detail) {}

    /** Rows found with a given difference kind (a row with several wrong cells counts once). */
    public long rows(Difference.Kind kind) {
        return differences.stream()
                .filter(d -> d.kind() == kind)
                .map(Difference::key)
                .distinct()
                .count();
    }

    /** Unjudged windows of a reason. */
    public long unjudged(Reason reason) {
        return unjudged.values().stream().filter(u -> u.reason() == reason).count();
    }

    /** Whether every judged row matched. */
    public boolean clean() {
        return differences.isEmpty();
    }

    /** The report as text lines: a summary, each difference, the unjudged by reason. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add(String.format(
                "audit: %d records read (%s); %d events counted (%d invalid, %d repeated ids, %d late left out)",
                recordsRead, offsets, counted, invalid, duplicates, late));
        out.add(String.format(
                "audit: windows from %s: %d rows matched, %d missing, %d extra, %d wrong, %d not judged"
                        + " (%d rows with downtime not judged) in %d ms",
                from == Long.MIN_VALUE
                        ? "the topic's beginning"
                        : Instant.ofEpochMilli(from).toString(),
                matched,
                rows(Difference.Kind.MISSING),
                rows(Difference.Kind.EXTRA),
                rows(Difference.Kind.WRONG),
                unjudged.size(),
                downtimeNotJudged,
                took.toMillis()));
        differences.forEach(d -> out.add(d.toString()));
        for (Reason r : Reason.values()) {
            List<String> keys = unjudged.entrySet().stream()
                    .filter(e -> e.getValue().reason() == r)
                    .map(Map.Entry::getKey)
                    .toList();
            if (!keys.isEmpty()) {
                String detail = unjudged.get(keys.get(0)).detail();
                out.add("NOT JUDGED " + keys.size() + " " + r + ": " + (detail == null ? r.text() : detail) + "; e.g. "
                        + String.join(", ", keys.subList(0, Math.min(5, keys.size()))));
            }
        }
        return out;
    }
}
