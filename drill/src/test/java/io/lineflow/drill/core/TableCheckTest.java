package io.lineflow.drill.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.recount.WindowRecount.Row;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Scenarios that share one table, one after another, are each judged on what is new. */
class TableCheckTest {
    private static Row row(String device, long start, long pieces) {
        return new Row(device, "line-1", start, pieces, 0, 0, 1, null, null);
    }

    private static ScenarioResult judge(Map<String, Row> expected, Map<String, Row> actual, Set<String> reported) {
        ScenarioResult result = new ScenarioResult(new Scenario("steady", false, false));
        TableCheck.judgeTable(expected, actual, result, reported);
        return result;
    }

    @Test
    void aLaterScenarioReportsOnlyItsOwnProblemsButCountsTheWholeTable() {
        Set<String> reported = new HashSet<>();
        Map<String, Row> expected = new TreeMap<>();
        Map<String, Row> actual = new TreeMap<>();
        expected.put("d1@0", row("d1", 0, 5));
        actual.put("d1@0", row("d1", 0, 7)); // doubled by the first scenario's fault

        ScenarioResult first = judge(expected, actual, reported);
        assertThat(first.wrong).isEqualTo(1);
        assertThat(first.problems).singleElement().asString().startsWith("WRONG d1@0 pieces_produced");

        long next = 10 * TableCheck.WINDOW;
        expected.put("d1@" + next, row("d1", next, 3)); // the second scenario's window, never written
        ScenarioResult second = judge(expected, actual, reported);
        assertThat(second.wrong).isZero();
        assertThat(second.missing).isEqualTo(1);
        assertThat(second.problems).singleElement().asString().startsWith("MISSING d1@" + next);
        assertThat(second.rowsExpected).isEqualTo(2);
        assertThat(second.rowsActual).isEqualTo(1);

        // A problem that changes is new: the same window wrong by another amount is reported again.
        actual.put("d1@0", row("d1", 0, 9));
        ScenarioResult third = judge(expected, actual, reported);
        assertThat(third.wrong).isEqualTo(1);
        assertThat(third.missing).isZero();
    }

    @Test
    void withNothingReportedBeforeEveryProblemIsReported() {
        Map<String, Row> expected = new TreeMap<>(Map.of("d1@0", row("d1", 0, 5)));
        Map<String, Row> actual = new TreeMap<>(Map.of("d2@0", row("d2", 0, 5)));
        ScenarioResult result = judge(expected, actual, new HashSet<>());
        assertThat(result.missing).isEqualTo(1);
        assertThat(result.extra).isEqualTo(1);
        assertThat(result.problems).hasSize(2);
    }
}
