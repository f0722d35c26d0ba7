package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.MarkdownTables;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * docs/flink-lines.md's table of the classes written once per Flink line against the tree: every
 * class of a module's {@code src/main/flink-<line>/java} or {@code src/test/flink-<line>/java}, in
 * every line's folder, and a row for each.
 */
class FlinkLinesDocTest {
    private static final Path DOC = Repo.ROOT.resolve("docs/flink-lines.md");
    /** What the table's "…" stands for: the package's head, down to the folder the row names. */
    private static final String PACKAGE_HEAD = "io/lineflow(?:/\\w+)*";
    /** A class of one line: module, main or test, line, path in the package folders. */
    private static final Pattern LINE_SOURCE =
            Pattern.compile("([\\w-]+)/src/(main|test)/flink-([^/]+)/java/(.+)\\.java");

    @Test
    void theTableOfPerLineClassesListsEveryClassTheTreeKeepsOncePerLine() throws IOException {
        Map<String, Set<String>> linesOf = perLineClasses();
        Set<String> lines = new TreeSet<>();
        linesOf.values().forEach(lines::addAll);
        assertThat(linesOf)
                .as("the classes under src/*/flink-<line>/java, each in the folder of every line %s", lines)
                .isNotEmpty()
                .allSatisfy((path, in) -> assertThat(in).as(path).isEqualTo(lines));
        // A list, not a set: a class documented twice is a disagreement too.
        List<String> documented =
                MarkdownTables.table(DOC, "## How one tree builds both", "class (both lines)").stream()
                        .map(row -> named(MarkdownTables.unquote(row.get(0)), linesOf.keySet()))
                        .toList();
        assertThat(documented)
                .as("the classes the table under '## How one tree builds both' in %s names, against the tree", DOC)
                .containsExactlyInAnyOrderElementsOf(linesOf.keySet());
    }

    /**
     * Each class kept once per line, as {@code module/package/Name} ({@code module/src/test/…} for
     * a test class), with the lines whose folder has it.
     */
    private static Map<String, Set<String>> perLineClasses() throws IOException {
        Map<String, Set<String>> linesOf = new TreeMap<>();
        try (Stream<Path> modules = Files.list(Repo.ROOT)) {
            for (Path src : modules.map(m -> m.resolve("src"))
                    .filter(Files::isDirectory)
                    .toList()) {
                try (Stream<Path> files = Files.walk(src)) {
                    files.map(f -> LINE_SOURCE.matcher(Repo.ROOT.relativize(f).toString()))
                            .filter(Matcher::matches)
                            .forEach(m -> linesOf.computeIfAbsent(
                                            m.group(1) + (m.group(2).equals("test") ? "/src/test/" : "/") + m.group(4),
                                            c -> new TreeSet<>())
                                    .add(m.group(3)));
                }
            }
        }
        return linesOf;
    }

    /**
     * The class a row names, as {@link #perLineClasses} writes it; the row itself when it names none,
     * so that the comparison shows it. A row writes {@code module/…/Name}, or {@code module/…/pkg/Name},
     * and {@code module/src/test/…/Name} for a test class.
     */
    private static String named(String row, Set<String> classes) {
        Pattern p = Pattern.compile(Pattern.quote(row).replace("…", "\\E" + PACKAGE_HEAD + "\\Q"));
        return classes.stream().filter(c -> p.matcher(c).matches()).findFirst().orElse(row);
    }
}
