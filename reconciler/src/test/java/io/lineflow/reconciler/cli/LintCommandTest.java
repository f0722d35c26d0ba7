package io.lineflow.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.act.Reports;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.Severity;

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
import java.util.List;
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
        Set<Severity> severities = new HashSet<>();
        report.get(0).get("findings").forEach(f -> {
            codes.add(f.get("code").asText());
            severities.add(Severity.valueOf(f.get("severity").asText()));
        });
        assertThat(codes).containsExactly(FindingCode.valueOf(expected).name());
        assertThat(r.exit()).isEqualTo(severities.iterator().next().exitCode());
    }

    @Test
    void anotherTeamsJobWithoutAnIntervalIsOffInStatelessAndSavepointMode() throws IOException {
        // The GitOps gate sees every FlinkDeployment of a namespace: for a job that is not
        // lineflow's, only an explicit interval or the operator's last-state default turns
        // checkpointing on.
        Path savepoint = BAD.resolve("CHECKPOINTING_DISABLED-other-job-savepoint.yaml");
        Path stateless = Files.createTempFile("other-job-stateless", ".yaml");
        Files.writeString(
                stateless, Files.readString(savepoint).replace("upgradeMode: savepoint", "upgradeMode: stateless"));
        for (Path manifest : List.of(savepoint, stateless)) {
            JsonNode finding = findings(lint("--output", "json", manifest.toString()), "CHECKPOINTING_DISABLED");
            assertThat(finding).as(manifest.toString()).isNotNull();
            assertThat(finding.get("message").asText())
                    .contains("cannot see")
                    .contains("execution.checkpointing.interval");
        }
        Path lastState = Files.createTempFile("other-job-last-state", ".yaml");
        Files.writeString(
                lastState, Files.readString(savepoint).replace("upgradeMode: savepoint", "upgradeMode: last-state"));
        Run r = lint("--output", "json", lastState.toString());
        assertThat(findings(r, "CHECKPOINTING_DISABLED")).isNull();
        assertThat(findings(r, "CHECKPOINT_INTERVAL_DEFAULTED").get("message").asText())
                .contains("5 min");
    }

    @Test
    void lineflowsJobWithoutAnIntervalRunsAtItsOwnDefault() throws IOException {
        Run r = lint(GOOD.resolve("lineflow-savepoint-no-interval.yaml").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("HEALTHY").doesNotContain("CHECKPOINT");
    }

    /**
     * The gate reads a deployment on Flink 2.2 ({@code flinkVersion: v2_2}, which the operator API
     * this build has lacks) as the in-cluster reconciler does, and judges it: the good manifest on
     * 2.2 passes, and the same with checkpointing off is still caught.
     */
    @Test
    void aDeploymentOnFlink22IsLintedLikeAnyOther() throws IOException {
        String good = Files.readString(GOOD.resolve("lineflow.yaml"));
        assertThat(good).contains("flinkVersion: v1_20");
        Path onNext = Files.createTempFile("lineflow-flink-2.2", ".yaml");
        Files.writeString(onNext, good.replace("flinkVersion: v1_20", "flinkVersion: v2_2"));
        Run r = lint(onNext.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("HEALTHY");

        Path off = Files.createTempFile("lineflow-flink-2.2-off", ".yaml");
        Files.writeString(
                off,
                Files.readString(onNext)
                        .replace(
                                "execution.checkpointing.interval: \"60 s\"",
                                "execution.checkpointing.interval: \"0 s\""));
        assertThat(findings(lint("--output", "json", off.toString()), "CHECKPOINTING_DISABLED"))
                .isNotNull();
    }

    private static JsonNode findings(Run r, String code) throws IOException {
        for (JsonNode f : Reports.JSON.readTree(r.out()).get(0).get("findings")) {
            if (f.get("code").asText().equals(code)) {
                return f;
            }
        }
        return null;
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
