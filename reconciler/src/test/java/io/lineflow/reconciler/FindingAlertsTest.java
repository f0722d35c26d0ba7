package io.lineflow.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.model.FindingCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The shipped alert rules against the reconciler's codes: a finding that can warn pages someone,
 * so a new code without an alert fails here rather than stay silent in production.
 */
class FindingAlertsTest {
    private static final Path RULES = Path.of("../manifests/monitoring/prometheusrule.yaml");
    /**
     * Codes reported only as advice or coverage (INFO), which no alert is for: which jobs the
     * duplicate detector cannot judge is a dashboard's question ({@code
     * lineflow_reconciler_duplicates_judged}); it must not page while a broker restarts (Kafka not
     * readable, which OBSERVATION_FAILED already warns of).
     */
    private static final Set<FindingCode> ADVICE_ONLY =
            EnumSet.of(FindingCode.CHECKPOINT_INTERVAL_DEFAULTED, FindingCode.DUPLICATES_NOT_JUDGED);

    @Test
    void everyFindingCodeThatCanWarnIsInAnAlertsExpression() throws IOException {
        List<String> expressions = new ArrayList<>();
        for (JsonNode group :
                new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile()).at("/spec/groups")) {
            group.path("rules").forEach(r -> expressions.add(r.path("expr").asText()));
        }
        assertThat(expressions).isNotEmpty();
        List<FindingCode> withoutAlert = Arrays.stream(FindingCode.values())
                .filter(c -> !ADVICE_ONLY.contains(c))
                .filter(c -> expressions.stream()
                        .noneMatch(e -> Pattern.compile("\\b" + c.name() + "\\b")
                                .matcher(e)
                                .find()))
                .toList();
        assertThat(withoutAlert).as("finding codes no alert fires on").isEmpty();
    }
}
