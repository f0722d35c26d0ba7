package io.lineflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.Map;

/** Rows 8 and 8b of the report: what each ratio pairs, and how the rows read. */
class ReportTest {
    private static final long EVENTS = 1_000;

    /** Two rounds whose ratios differ from round to round (seconds per row). */
    private static Report twoRounds() {
        Report report = new Report(
                BenchSettings.parse("--events", "1000", "--devices", "10", "--events-per-window", "10"), "1.20.1");
        report.otherLine = "2.2.0";
        report.addRound(
                Map.of(
                        "limit", 1.0,
                        "lineflow", 2.0,
                        "other-lineflow", 1.7,
                        "other-sql", 4.0,
                        "sql", 3.0,
                        "sql-dedup", 6.0),
                EVENTS);
        report.addRound(
                Map.of(
                        "limit", 1.0,
                        "lineflow", 4.0,
                        "other-lineflow", 5.0,
                        "other-sql", 5.5,
                        "sql", 6.0,
                        "sql-dedup", 8.0),
                EVENTS);
        return report;
    }

    private static String row(String text, String n) {
        return text.lines()
                .filter(l -> l.startsWith("| " + n + " |"))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void eachRatioIsTheMedianOfItsRoundsRatiosNotARatioOfMedians() {
        String text = twoRounds().render("test machine", "2026-12-07");

        // lineflow on 2.2 ÷ on 1.20 per round: 2.0/1.7 = 1.18 and 4.0/5.0 = 0.80, median 0.99. The
        // medians of the rates would give 1.05 (394 ÷ 375), and so would the ratio the wrong way up.
        // lineflow on 2.2 ÷ SQL on 2.2: 4.0/1.7 = 2.35 and 5.5/5.0 = 1.10, median 1.73.
        assertThat(row(text, "8"))
                .startsWith("| 8 | lineflow job on Flink 2.2.0: ")
                .contains("(table checked: exact)")
                .contains("| 394 ev/s |")
                .endsWith(
                        "| = 0.99 × lineflow on 1.20.1 (0.80–1.18, n=2); = 1.73 × Flink SQL on 2.2.0 (1.10–2.35, n=2) |");
        // SQL on 2.2 ÷ on 1.20: 3.0/4.0 = 0.75 and 6.0/5.5 = 1.09, median 0.92.
        assertThat(row(text, "8b"))
                .startsWith("| 8b | Flink SQL on Flink 2.2.0: row 3's query")
                .contains("(table checked)")
                .contains("| 216 ev/s |")
                .endsWith("| SQL on 2.2.0 = 0.92 × SQL on 1.20.1 (0.75–1.09, n=2) |");
    }

    @Test
    void aTableTheOtherLineLeftIncompleteIsMarked() {
        Report report = twoRounds();
        report.otherLineflowExact = false;
        report.otherSql.exact = false;

        String text = report.render("test machine", "2026-12-07");

        assertThat(row(text, "8")).contains("(**table NOT exact**)").doesNotContain("table checked");
        assertThat(row(text, "8b")).contains("(**table NOT complete**)").doesNotContain("table checked");
    }

    @Test
    void withoutTheOtherLineRow8SaysItDidNotRun() {
        Report report = new Report(
                BenchSettings.parse("--events", "1000", "--devices", "10", "--events-per-window", "10"), "1.20.1");
        report.addRound(Map.of("limit", 1.0, "lineflow", 2.0, "sql", 3.0, "sql-dedup", 6.0), EVENTS);

        String text = report.render("test machine", "2026-12-07");

        assertThat(row(text, "8"))
                .isEqualTo("| 8 | lineflow on the other Flink line | not run (no --other-line) |  |  |");
        assertThat(text).doesNotContain("| 8b |");
        assertThat(row(text, "3")).endsWith("| lineflow = 1.50 × SQL |");
    }
}
