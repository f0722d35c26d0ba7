package io.lineflow.reconciler;

import static io.lineflow.testing.MarkdownTables.table;
import static io.lineflow.testing.MarkdownTables.unquote;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.flinkrest.KafkaReader;
import io.lineflow.reconciler.model.FindingCode;

import org.apache.flink.configuration.ConfigOption;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * docs/reconciler.md's tables against the code: every finding code in the table of its kind, every
 * setting with its env var, default and description, and nothing in the tables that the code lacks.
 */
class ReconcilerDocsTest {

    private static final Path DOC = Path.of("../docs/reconciler.md");

    /** The heading above each kind's table of codes. */
    private static final Map<FindingCode.Kind, String> CODE_SECTIONS = Map.of(
            FindingCode.Kind.SPEC, "### Spec checks",
            FindingCode.Kind.RUNTIME, "### Runtime checks");

    @Test
    void everyFindingCodeIsInTheTableOfItsKindOnceAndNothingElseIs() {
        for (FindingCode.Kind kind : FindingCode.Kind.values()) {
            // A list, not a set: a code documented twice is a disagreement too.
            assertThat(table(DOC, CODE_SECTIONS.get(kind), "code").stream()
                            .map(row -> unquote(row.get(0)))
                            .sorted())
                    .as("codes in the table under '%s'", CODE_SECTIONS.get(kind))
                    .containsExactlyElementsOf(Arrays.stream(FindingCode.values())
                            .filter(c -> c.kind() == kind)
                            .map(FindingCode::name)
                            .sorted()
                            .toList());
        }
    }

    @Test
    void everySettingIsInTheConfigurationReferenceOnceAsTheCodeDeclaresIt() {
        List<List<String>> table = table(DOC, "## Configuration reference", "setting (after `lineflow.reconciler.`)");
        List<String> keys = table.stream()
                .map(row -> ReconcilerOptions.PREFIX + unquote(row.get(0)))
                .toList();
        assertThat(keys)
                .as("settings in the configuration reference")
                .containsExactlyInAnyOrderElementsOf(
                        ReconcilerOptions.all().stream().map(ConfigOption::key).toList());
        SoftAssertions rows = new SoftAssertions();
        for (ConfigOption<?> option : ReconcilerOptions.all()) {
            List<String> row = table.get(keys.indexOf(option.key()));
            String defaultText = ReconcilerOptions.defaultText(option);
            // The meaning may quote names as code in Markdown; the words must be the description's.
            rows.assertThat(List.of(row.get(1), row.get(2), unquote(row.get(3))))
                    .as("env var, default and meaning of %s", option.key())
                    .containsExactly(
                            "`" + Main.envVar(option) + "`",
                            defaultText.isEmpty() ? "(empty)" : "`" + defaultText + "`",
                            unquote(ReconcilerOptions.describe(option)));
        }
        rows.assertAll();
    }

    @Test
    void theTableOfRecognisedReadersHasEveryKindByItsMetricAndWhetherItsAssignmentsAreCounted() {
        List<List<String>> table = table(DOC, "## Kafka readers it recognises", "reader");
        // A kind recognised by a metric of its own is the row that starts its second column with
        // that metric; the other rows (the source vertex, the unjudged) name none.
        Map<String, List<String>> byMetric = new HashMap<>();
        for (List<String> row : table) {
            if (row.get(1).startsWith("`")) {
                String metric = row.get(1).substring(1, row.get(1).indexOf('`', 1));
                assertThat(byMetric.put(metric, row))
                        .as("one row for %s", metric)
                        .isNull();
            }
        }
        List<KafkaReader> recognisedByMetric = Arrays.stream(KafkaReader.values())
                .filter(r -> r != KafkaReader.SOURCE_VERTEX)
                .toList();
        assertThat(byMetric.keySet())
                .as("the metrics the table names")
                .containsExactlyInAnyOrderElementsOf(
                        recognisedByMetric.stream().map(KafkaReader::metric).toList());
        for (KafkaReader reader : recognisedByMetric) {
            assertThat(byMetric.get(reader.metric()).get(2))
                    .as("whether %s's assignments are counted", reader)
                    .startsWith(reader.countsAssignments() ? "yes" : "no");
        }
    }
}
