package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.MarkdownTables;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;

/**
 * docs/architecture.md's module map against the reactor: the map and the table under "## Modules"
 * name every module of the root pom.xml once, and what each module's pom.xml depends on among the
 * others, main code's and the tests' apart.
 */
class ArchitectureDocTest {
    private static final Path DOC = Repo.ROOT.resolve("docs/architecture.md");
    private static final String SECTION = "## Modules";
    /**
     * A module's first line in the map: its name at the margin, then what it depends on, up to the
     * first ':' or ' + ' (the rest is libraries and what the module is for).
     */
    private static final Pattern MAP_LINE = Pattern.compile(" ([\\w-]+) +(.*?)(?::| \\+ ).*");

    private static final XPath XPATH = XPathFactory.newInstance().newXPath();

    /**
     * A module of the reactor and the modules its pom.xml depends on: main code's (compile,
     * provided, runtime) and the tests'. A module without main code is one of tests only.
     */
    private record Module(String name, boolean testsOnly, Set<String> main, Set<String> tests) {
        /** As the map draws it: what the main code depends on, or the tests of a module of tests only. */
        String drawn() {
            return name + (testsOnly ? ": tests only " + tests : ": " + main);
        }

        /** As the table gives it. */
        String row() {
            return name + (testsOnly ? ": test scope only " + tests : ": " + main + ", tests " + tests);
        }
    }

    @Test
    void theMapDrawsEveryModuleOnceBelowWhatItDependsOn() throws Exception {
        Map<String, Module> modules = modules();
        List<String> drawn = new ArrayList<>();
        List<String> above = new ArrayList<>();
        List<String> misplaced = new ArrayList<>();
        for (String line : mapLines()) {
            Matcher m = MAP_LINE.matcher(line);
            if (m.matches() && modules.containsKey(m.group(1))) {
                String name = m.group(1);
                Set<String> deps = modulesIn(List.of(m.group(2).split("[^\\w-]+")), modules.keySet());
                boolean testsOnly = m.group(2).startsWith("tests only");
                drawn.add(
                        new Module(name, testsOnly, testsOnly ? Set.of() : deps, testsOnly ? deps : Set.of()).drawn());
                deps.stream().filter(d -> !above.contains(d)).forEach(d -> misplaced.add(name + " → " + d));
                above.add(name);
            }
        }
        // A list, not a set: a module drawn twice is a disagreement too.
        assertThat(drawn)
                .as(
                        "each module's line of the map under '%s' in %s (what its main code depends on, or the"
                                + " tests of a module of tests only), against the modules' pom.xml",
                        SECTION, DOC)
                .containsExactlyInAnyOrderElementsOf(
                        modules.values().stream().map(Module::drawn).toList());
        assertThat(misplaced)
                .as("modules drawn above a module they depend on, in the map under '%s' in %s", SECTION, DOC)
                .isEmpty();
    }

    @Test
    void theTableGivesEveryModulesDependenciesOnTheOthers() throws Exception {
        Map<String, Module> modules = modules();
        assertThat(MarkdownTables.table(DOC, SECTION, "module", "depends on", "why").stream()
                        .map(row -> documented(row, modules.keySet()).row())
                        .toList())
                .as(
                        "the table under '%s' in %s: the modules 'depends on' names (after 'test scope only:' for"
                                + " a module of tests only) and those 'why' names after 'Tests:', against the"
                                + " modules' pom.xml",
                        SECTION, DOC)
                .containsExactlyInAnyOrderElementsOf(
                        modules.values().stream().map(Module::row).toList());
    }

    /** What a row of the table says of its module. */
    private static Module documented(List<String> row, Set<String> modules) {
        String name = MarkdownTables.unquote(row.get(0));
        Set<String> dependsOn = modulesIn(MarkdownTables.codeSpans(row.get(1)), modules);
        if (row.get(1).startsWith("test scope only:")) {
            return new Module(name, true, Set.of(), dependsOn);
        }
        int tests = row.get(2).indexOf("Tests:");
        String testsText = tests < 0 ? "" : row.get(2).substring(tests);
        return new Module(name, false, dependsOn, modulesIn(MarkdownTables.codeSpans(testsText), modules));
    }

    /** The words of {@code words} that name a module. */
    private static Set<String> modulesIn(Collection<String> words, Set<String> modules) {
        Set<String> named = new TreeSet<>(words);
        named.retainAll(modules);
        return named;
    }

    /** The lines of the map: the first fenced block under the section. */
    private static List<String> mapLines() {
        List<String> lines = MarkdownTables.read(DOC);
        int section = lines.indexOf(SECTION);
        assertThat(section).as("the heading '%s' in %s", SECTION, DOC).isNotNegative();
        List<String> below = lines.subList(section, lines.size());
        int open = below.indexOf("```");
        int close = open < 0 ? -1 : below.subList(open + 1, below.size()).indexOf("```");
        assertThat(close)
                .as("a fenced block (the map) under '%s' in %s", SECTION, DOC)
                .isNotNegative();
        return below.subList(open + 1, open + 1 + close);
    }

    /** The reactor's modules (the root pom.xml's), by name. */
    private static Map<String, Module> modules() throws Exception {
        Map<String, Document> poms = new TreeMap<>();
        Map<String, String> byArtifact = new HashMap<>();
        for (Node module : nodes(pom(Repo.ROOT), "/project/modules/module")) {
            String name = module.getTextContent().strip();
            Document pom = pom(Repo.ROOT.resolve(name));
            poms.put(name, pom);
            byArtifact.put(XPATH.evaluate("/project/artifactId", pom), name);
        }
        Map<String, Module> modules = new TreeMap<>();
        for (Map.Entry<String, Document> e : poms.entrySet()) {
            Set<String> main = new TreeSet<>();
            Set<String> tests = new TreeSet<>();
            for (Node dep : nodes(e.getValue(), "/project/dependencies/dependency[groupId='io.lineflow']")) {
                (XPATH.evaluate("scope", dep).equals("test") ? tests : main)
                        .add(byArtifact.get(XPATH.evaluate("artifactId", dep)));
            }
            boolean testsOnly = !Files.isDirectory(Repo.ROOT.resolve(e.getKey()).resolve("src/main"));
            modules.put(e.getKey(), new Module(e.getKey(), testsOnly, main, tests));
        }
        return modules;
    }

    private static Document pom(Path module) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(module.resolve("pom.xml").toFile());
    }

    private static List<Node> nodes(Node from, String xpath) throws Exception {
        NodeList list = (NodeList) XPATH.evaluate(xpath, from, XPathConstants.NODESET);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < list.getLength(); i++) {
            nodes.add(list.item(i));
        }
        return nodes;
    }
}
