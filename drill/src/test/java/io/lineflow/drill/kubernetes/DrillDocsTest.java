package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;
import io.lineflow.drill.soak.SoakOptions;
import io.lineflow.testing.MarkdownTables;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The faults and scenarios the docs list and count, against the code: the local faults of
 * docs/drill.md and the soak's cycle in docs/soak.md ({@link Fault}, {@link SoakOptions#CYCLE}),
 * the Kubernetes scenarios of docs/e2e.md and what docs/monitoring.md says each must raise
 * ({@link KubernetesScenario#all()}, {@link KubernetesScenario#raises()}). In this package because
 * the scenarios are package-private.
 */
class DrillDocsTest {
    private static final Path DOCS = Path.of(System.getProperty("lineflow.repo.root", ".."))
            .resolve("docs")
            .toAbsolutePath()
            .normalize();
    private static final Path DRILL = DOCS.resolve("drill.md");
    private static final Path SOAK = DOCS.resolve("soak.md");
    private static final Path E2E = DOCS.resolve("e2e.md");
    private static final Path MONITORING = DOCS.resolve("monitoring.md");

    private static final List<String> NUMBERS = List.of(
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty");

    @Test
    void drillDocListsEveryLocalFaultOnceAndWhichRunInAll() {
        List<String> documented =
                MarkdownTables.table(DRILL, "# The restart drill", "fault", "what is done", "in `all`").stream()
                        .map(row -> MarkdownTables.unquote(row.get(0)) + " | " + row.get(2))
                        .toList();
        assertThat(documented)
                .as("rows (fault | in `all`) of the fault table in %s, against Fault.on(LOCAL) and Fault.hard", DRILL)
                .containsExactlyInAnyOrderElementsOf(Fault.on(Backend.Kind.LOCAL).stream()
                        .map(f -> f.id + " | "
                                + (f.changesFlinkLine()
                                        ? "only when named, never in the soak"
                                        : f.hard ? "only when named" : "yes"))
                        .toList());
    }

    @Test
    void drillDocCountsTheFaultsOfBothBackendsAsTheCodeHasThem() {
        List<List<String>> backends = MarkdownTables.table(DRILL, "# The restart drill", "", "`make drill` (local)");
        List<String> faults = backends.stream()
                .filter(row -> row.get(0).equals("faults"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row 'faults' in the table of the two backends in " + DRILL));
        SoftAssertions counts = new SoftAssertions();
        int local = Fault.drillDefaults(Backend.Kind.LOCAL).size();
        counts.assertThat(count(faults.get(1), "the (\\w+) in `all`"))
                .as("local faults in `all` (%s, row 'faults')", DRILL)
                .isEqualTo(local);
        counts.assertThat(count(faults.get(1), "the (\\w+) others when named"))
                .as("local faults run only when named (%s, row 'faults')", DRILL)
                .isEqualTo(Fault.on(Backend.Kind.LOCAL).size() - local);
        counts.assertThat(count(faults.get(2), "^(\\w+),"))
                .as("Kubernetes faults (%s, row 'faults')", DRILL)
                .isEqualTo(Fault.on(Backend.Kind.KUBERNETES).size());
        counts.assertAll();
    }

    @Test
    void soakDocListsItsCycleInOrderAndCountsIt() {
        assertThat(Set.copyOf(SoakOptions.CYCLE))
                .as("the soak's cycle is every local fault that keeps the Flink line (docs/drill.md says so)")
                .isEqualTo(Fault.on(Backend.Kind.LOCAL).stream()
                        .filter(f -> !f.changesFlinkLine())
                        .collect(Collectors.toSet()));
        assertThat(MarkdownTables.table(SOAK, "## What it does", "fault", "what happens").stream()
                        .map(row -> MarkdownTables.unquote(row.get(0)))
                        .toList())
                .as("the fault table of %s, in the order `all` cycles through (SoakOptions.CYCLE)", SOAK)
                .containsExactlyElementsOf(
                        SoakOptions.CYCLE.stream().map(f -> f.id).toList());
        String soak = String.join("\n", MarkdownTables.read(SOAK));
        int hard = (int) SoakOptions.CYCLE.stream().filter(f -> f.hard).count();
        SoftAssertions counts = new SoftAssertions();
        counts.assertThat(counts(soak, "through all (\\w+)"))
                .as("'through all N' in %s", SOAK)
                .containsOnly(SoakOptions.CYCLE.size());
        counts.assertThat(counts(soak, "`all` \\(the (\\w+) above\\)"))
                .as("'`all` (the N above)' in %s", SOAK)
                .containsOnly(SoakOptions.CYCLE.size());
        counts.assertThat(counts(soak, "the drill's (\\w+) and (\\w+) hard ones"))
                .as("'the drill's N and M hard ones' in %s", SOAK)
                .containsExactly(SoakOptions.CYCLE.size() - hard, hard);
        counts.assertThat(counts(soak, "The (\\w+) hard faults"))
                .as("'The N hard faults' in %s", SOAK)
                .containsOnly(hard);
        counts.assertAll();
    }

    @Test
    void e2eScenarioTableListsEveryScenarioInTheOrderAllRunsThem() {
        assertThat(MarkdownTables.table(
                                E2E,
                                "## The restart drill through the operator",
                                "scenario",
                                "what is done",
                                "what must hold")
                        .stream()
                        .map(row -> MarkdownTables.unquote(row.get(0)))
                        .toList())
                .as(
                        "the scenario table of %s against KubernetesScenario.all(); a scenario added to the code"
                                + " needs its row there, in the same place",
                        E2E)
                .containsExactlyElementsOf(KubernetesScenario.all().stream()
                        .map(KubernetesScenario::id)
                        .toList());
    }

    @Test
    void monitoringSaysWhatEachScenarioMustRaiseAsTheDrillChecksIt() {
        Map<String, Set<String>> documented = new LinkedHashMap<>();
        List<String> listed = new ArrayList<>();
        for (List<String> row :
                MarkdownTables.table(MONITORING, "### Proven on every e2e run", "scenario", "must raise")) {
            Set<String> alerts = new TreeSet<>(MarkdownTables.codeSpans(row.get(1)).stream()
                    .filter(s -> s.startsWith("Lineflow"))
                    .toList());
            for (String id : MarkdownTables.codeSpans(row.get(0))) {
                listed.add(id);
                documented.put(id, alerts);
            }
        }
        List<KubernetesScenario> all = KubernetesScenario.all();
        assertThat(listed)
                .as("scenarios in the 'must raise' table of %s (each once)", MONITORING)
                .containsExactlyInAnyOrderElementsOf(
                        all.stream().map(KubernetesScenario::id).toList());
        Map<String, Set<String>> code = new LinkedHashMap<>();
        all.forEach(s -> code.put(s.id(), new TreeSet<>(s.raises())));
        assertThat(documented)
                .as("the alerts each scenario must raise, in %s and in KubernetesScenario.raises()", MONITORING)
                .containsExactlyInAnyOrderEntriesOf(code);
    }

    /** The number one match of {@code regex} in {@code text} gives, in digits or words. */
    private static int count(String text, String regex) {
        List<Integer> found = counts(text, regex);
        assertThat(found).as("'%s' in '%s'", regex, text).hasSize(1);
        return found.get(0);
    }

    /**
     * The numbers every match of {@code regex} gives in {@code text}, group by group. No match fails:
     * a doc reworded so that the count is gone needs the pattern changed here, not a silent pass.
     */
    private static List<Integer> counts(String text, String regex) {
        Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
        List<Integer> out = new ArrayList<>();
        while (m.find()) {
            for (int g = 1; g <= m.groupCount(); g++) {
                out.add(number(m.group(g)));
            }
        }
        assertThat(out).as("a match of '%s'", regex).isNotEmpty();
        return out;
    }

    private static int number(String word) {
        if (word.chars().allMatch(Character::isDigit)) {
            return Integer.parseInt(word);
        }
        int at = NUMBERS.indexOf(word.toLowerCase());
        assertThat(at).as("'%s' as a number", word).isNotNegative();
        return at;
    }
}
