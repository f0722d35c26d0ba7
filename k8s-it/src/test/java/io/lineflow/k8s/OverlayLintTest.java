package io.lineflow.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.cli.LintCommand;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The GitOps gate: the reconciler's {@code lint} passes every lineflow overlay as rendered. */
class OverlayLintTest {

    static Stream<Path> overlays() throws IOException {
        return Files.list(Repo.ROOT.resolve("kustomize/overlays"))
                .filter(Files::isDirectory)
                .sorted();
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void lintFindsNothingInTheRenderedOverlay(Path overlay) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = lint(overlay, out);
        assertThat(exit)
                .as("lint of %s:%n%s", overlay, out.toString(StandardCharsets.UTF_8))
                .isZero();
    }

    /** The base alone has no storage component: the gate must stop it. */
    @Test
    void lintStopsTheBaseWithoutDurableStorage() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = lint(Repo.ROOT.resolve("kustomize/base"), out);
        assertThat(exit).isNotZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("CHECKPOINT_STORAGE_NOT_DURABLE");
    }

    private static int lint(Path kustomization, ByteArrayOutputStream out) throws IOException {
        String rendered = Repo.kustomize(kustomization);
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return LintCommand.run(
                new String[] {"-"}, new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8)), print, print);
    }
}
