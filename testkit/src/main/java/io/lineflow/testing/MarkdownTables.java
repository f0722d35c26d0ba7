package io.lineflow.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tables of a Markdown document, for the tests that hold the docs to the code: a doc that
 * lists what the code has (finding codes, settings, alerts, faults, scenarios) is read back and
 * compared, so the two cannot drift apart unnoticed.
 */
public final class MarkdownTables {
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");

    private MarkdownTables() {}

    /**
     * The rows of the first table in the section whose heading starts with {@code heading} (up to
     * the next heading of the same or a higher level) whose header row begins with {@code header};
     * each row as its trimmed cells. Fails, naming the doc, the heading and the header, when there
     * is no such section or table: a doc reworded so that the test no longer finds what it checks
     * must fail, not pass.
     */
    public static List<List<String>> table(Path doc, String heading, String... header) {
        List<String> lines = read(doc);
        int at = 0;
        while (at < lines.size() && !lines.get(at).startsWith(heading)) {
            at++;
        }
        if (at == lines.size()) {
            throw new AssertionError("no heading '" + heading + "' in " + doc);
        }
        int level = level(heading);
        List<String> want = List.of(header);
        boolean fenced = false; // a '#' in a code block is a comment, not a heading
        for (int i = at + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            int l = fenced ? 0 : level(line);
            if (l > 0 && l <= level) {
                break;
            }
            // A table may stand indented in a list item.
            if (!fenced && line.strip().startsWith("|") && startsWith(cells(line), want)) {
                return rows(lines, i + 1);
            }
        }
        throw new AssertionError("no table with the columns " + want + " under '" + heading + "' in " + doc);
    }

    /** The cells of a table row, trimmed; none of the tables read has a {@code |} inside a cell. */
    public static List<String> cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") && inner.length() > 1 ? inner.length() - 1 : inner.length());
        return Arrays.stream(inner.split("\\|", -1)).map(String::strip).toList();
    }

    /** What a cell quotes as code ({@code `like this`}), in order. */
    public static List<String> codeSpans(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = CODE_SPAN.matcher(cell);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** A cell without its code quotes. */
    public static String unquote(String cell) {
        return cell.replace("`", "");
    }

    /** The lines of a doc. */
    public static List<String> read(Path doc) {
        try {
            return Files.readAllLines(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<List<String>> rows(List<String> lines, int from) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : lines.subList(from, lines.size())) {
            String row = line.strip();
            if (!row.startsWith("|")) {
                break;
            }
            if (!row.startsWith("|---") && !row.startsWith("| ---")) {
                rows.add(cells(row));
            }
        }
        return rows;
    }

    private static boolean startsWith(List<String> cells, List<String> want) {
        return cells.size() >= want.size() && cells.subList(0, want.size()).equals(want);
    }

    /** The level of a Markdown heading line (the number of leading {@code #}), 0 for other lines. */
    private static int level(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == '#') {
            n++;
        }
        return n > 0 && n < line.length() && line.charAt(n) == ' ' ? n : 0;
    }
}
