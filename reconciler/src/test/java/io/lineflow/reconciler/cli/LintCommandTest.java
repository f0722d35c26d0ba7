package io.lineflow.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.act.Reports;
import io.lineflow.reconciler.model.FindingCode;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/** `lint` flags each seeded pitfall (and only it) and passes lineflow's own manifest. */
class LintCommandTest {

    private static final Path BAD = Path.of("src/test/resources/lint/bad");
    private static final Path GOOD = Path.of("src/test/resources/lint/good");

    static Stream<Path> badManifests() throws IOException {
        return Files.list(BAD).sorted();
    }

    private record Run(int exit, String out) {}

    private static Run lint(String... args) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = LintCommand.run(
                args,
                new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @MethodSource("badManifests")
    void flagsTheSeededPitfallAndNothingElse(Path manifest) throws IOException {
        String expected = manifest.getFileName().toString().replaceAll("(-.*)?\\.yaml$", "");
        Run r = lint("--output", "json", manifest.toString());
        JsonNode report = Reports.JSON.readTree(r.out());
        Set<String> codes = new HashSet<>();
        report.get(0).get("findings").forEach(f -> codes.add(f.get("code").asText()));
        assertThat(codes).containsExactly(FindingCode.valueOf(expected).name());
        assertThat(r.exit()).isIn(1, 2);
    }

    @Test
    void everySpecCodeHasASeededPitfall() throws IOException {
        Set<String> seeded = new HashSet<>();
        try (Stream<Path> s = badManifests()) {
            s.forEach(p -> seeded.add(p.getFileName().toString().replaceAll("(-.*)?\\.yaml$", "")));
        }
        Arrays.stream(FindingCode.values())
                .filter(c -> c.kind() == FindingCode.Kind.SPEC)
                .forEach(c -> assertThat(seeded).contains(c.name()));
    }

    @Test
    void passesLineflowsOwnManifestWithExitZero() throws IOException {
        Run r = lint(GOOD.resolve("lineflow.yaml").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("HEALTHY");
    }

    @Test
    void exitCodeIsTheWorstSeverityAcrossAllFiles() throws IOException {
        assertThat(lint(BAD.resolve("SAVEPOINT_DIR_MISSING.yaml").toString()).exit())
                .isEqualTo(1);
        assertThat(lint(
                                BAD.resolve("SAVEPOINT_DIR_MISSING.yaml").toString(),
                                BAD.resolve("HA_DISABLED.yaml").toString())
                        .exit())
                .isEqualTo(2);
        assertThat(lint(
                                "--fail-on",
                                "critical",
                                BAD.resolve("SAVEPOINT_DIR_MISSING.yaml").toString())
                        .exit())
                .isZero();
    }

    @Test
    void readsAMultiDocumentStreamFromStdin() throws IOException {
        String all = Files.readString(GOOD.resolve("lineflow.yaml")) + "---\n"
                + Files.readString(BAD.resolve("RESTART_STRATEGY_NONE.yaml"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = LintCommand.run(
                new String[] {"-"},
                new ByteArrayInputStream(all.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream()));
        assertThat(exit).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("lineflow/lineflow", "RESTART_STRATEGY_NONE");
        assertThat(new File("src/test/resources").isDirectory()).isTrue();
    }
}
