package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.MarkdownTables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/monitoring.md's alert table against the shipped PrometheusRule: every alert once, with its
 * severity and how long it must hold before it fires, and nothing the rules lack.
 */
class MonitoringDocTest {
    private static final Path DOC = Repo.ROOT.resolve("docs/monitoring.md");
    private static final Path RULE = Repo.ROOT.resolve("manifests/monitoring/prometheusrule.yaml");
    private static final Pattern MINUTES = Pattern.compile("(\\d+)m");

    @Test
    void theAlertTableListsEveryShippedAlertOnceWithItsSeverityAndFor() throws IOException {
        List<String> documented = MarkdownTables.table(DOC, "### Alert rules", "alert", "severity").stream()
                .map(row -> String.join(" | ", MarkdownTables.unquote(row.get(0)), row.get(1), row.get(row.size() - 1)))
                .toList();
        // A list, not a set: an alert documented twice is a disagreement too.
        assertThat(documented)
                .as("rows (alert | severity | for) of the table under '### Alert rules' in %s, against %s", DOC, RULE)
                .containsExactlyInAnyOrderElementsOf(shipped());
    }

    /** Each rule of the PrometheusRule as the table writes it: name, severity, for. */
    private static List<String> shipped() throws IOException {
        List<String> rows = new ArrayList<>();
        for (JsonNode group :
                new ObjectMapper(new YAMLFactory()).readTree(RULE.toFile()).at("/spec/groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (rule.has("alert")) {
                    rows.add(String.join(
                            " | ",
                            rule.path("alert").asText(),
                            rule.at("/labels/severity").asText(),
                            forText(rule.path("for").asText("0m"))));
                }
            }
        }
        assertThat(rows).as("alerts in %s", RULE).isNotEmpty();
        return rows;
    }

    /** {@code 0m} is "at once", {@code 5m} "5 min"; a duration in another unit fails, to be added here. */
    private static String forText(String duration) {
        Matcher m = MINUTES.matcher(duration);
        assertThat(m.matches())
                .as("'for: %s' in whole minutes (the table's unit)", duration)
                .isTrue();
        int minutes = Integer.parseInt(m.group(1));
        return minutes == 0 ? "at once" : minutes + " min";
    }
}
