package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.Commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The shipped alert rules (manifests/monitoring/prometheusrule.yaml) as Prometheus itself reads
 * them: promtool checks the rules file they make and runs their unit tests, and every alert is
 * tested both firing and quiet. Also writes that plain rules file (for a Prometheus without the
 * Prometheus Operator) to deploy/target/alerts, which is what {@code make alert-rules} publishes.
 */
class AlertRulesTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Path RULE = Repo.ROOT.resolve("manifests/monitoring/prometheusrule.yaml");
    private static final Path UNIT_TESTS = Repo.TEST_RESOURCES.resolve("alerts/lineflow-alerts.test.yml");
    static final Path OUT = Repo.ROOT.resolve("deploy/target/alerts");
    static final String RULES_FILE = "lineflow-alerts.rules.yml";

    private static JsonNode groups;

    @BeforeAll
    static void writeRulesFiles() throws IOException {
        groups = YAML.readTree(RULE.toFile()).at("/spec/groups");
        assertThat(groups.isArray()).as("spec.groups of " + RULE).isTrue();
        Files.createDirectories(OUT);
        YAML.writeValue(OUT.resolve(RULES_FILE).toFile(), Map.of("groups", groups));
        // promtool's unit tests compare annotations too; they are left out of the file the tests
        // load (their templates are checked on the shipped file), so the tests hold the firing logic.
        JsonNode firing = groups.deepCopy();
        firing.forEach(g -> g.path("rules").forEach(r -> ((ObjectNode) r).remove("annotations")));
        YAML.writeValue(OUT.resolve("firing.rules.yml").toFile(), Map.of("groups", firing));
        Files.copy(
                UNIT_TESTS, OUT.resolve(UNIT_TESTS.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void promtoolAcceptsTheShippedRules() {
        String out = promtool("check", "rules", RULES_FILE);
        assertThat(out).contains("SUCCESS: " + alerts().size() + " rules found");
    }

    @Test
    void everyAlertFiresAndStaysQuietAsItsUnitTestsSay() {
        promtool("test", "rules", UNIT_TESTS.getFileName().toString());
    }

    @Test
    void everyAlertIsTestedFiringAndQuiet() throws IOException {
        Set<String> fired = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (JsonNode test : YAML.readTree(UNIT_TESTS.toFile()).path("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                String name = check.path("alertname").asText();
                (check.path("exp_alerts").isEmpty() ? quiet : fired).add(name);
            }
        }
        assertThat(fired).as("alerts with a test where they fire").containsExactlyInAnyOrderElementsOf(alerts());
        assertThat(quiet).as("alerts with a test where they do not").containsExactlyInAnyOrderElementsOf(alerts());
    }

    @Test
    void everyAlertSaysWhatHappenedAndWhatToDo() {
        List<String> missing = new ArrayList<>();
        for (JsonNode g : groups) {
            for (JsonNode r : g.path("rules")) {
                for (String field : List.of("/annotations/summary", "/annotations/description", "/labels/severity")) {
                    if (r.at(field).asText().isBlank()) {
                        missing.add(r.path("alert").asText() + field);
                    }
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    private static List<String> alerts() {
        List<String> names = new ArrayList<>();
        groups.forEach(
                g -> g.path("rules").forEach(r -> names.add(r.path("alert").asText())));
        return names;
    }

    /** Runs promtool in the output folder; a machine without it fails with how to get it. */
    private static String promtool(String... args) {
        List<String> command = new ArrayList<>(List.of("promtool"));
        command.addAll(List.of(args));
        try {
            Commands.Result r = Commands.exec(OUT, Map.of(), null, Duration.ofMinutes(2), command);
            assertThat(r.ok())
                    .as("promtool %s:%n%s%s", String.join(" ", args), r.out(), r.err())
                    .isTrue();
            return r.out();
        } catch (java.io.UncheckedIOException e) {
            throw new AssertionError(
                    "promtool is not installed: `make test-tools` (or apt-get install prometheus) installs it", e);
        }
    }
}
