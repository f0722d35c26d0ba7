package io.lineflow.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Paths of the repository under test and a runner for its scripts. */
final class Repo {
    static final Path ROOT = Path.of(System.getProperty("lineflow.repo.root", ".."))
            .toAbsolutePath()
            .normalize();
    static final Path TEST_RESOURCES = Path.of(System.getProperty("lineflow.test.resources", "src/test/resources"))
            .toAbsolutePath()
            .normalize();
    static final Path KUBECTL = ROOT.resolve("bin/kubectl");
    static final Path OPENAPI = ROOT.resolve(".cache/k8s-openapi/swagger.json");

    private Repo() {}

    static Path overlay(String name) {
        return ROOT.resolve("kustomize/overlays").resolve(name);
    }

    static Path testOverlay(String name) {
        return TEST_RESOURCES.resolve("overlays").resolve(name);
    }

    /** Runs a command from the repository root; returns stdout, fails with stderr on exit != 0. */
    static String run(Map<String, String> env, String... command) {
        try {
            Path out = Files.createTempFile("lineflow-run", ".out");
            Path err = Files.createTempFile("lineflow-run", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(List.of(command))
                        .directory(ROOT.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile());
                pb.environment().putAll(env);
                Process p = pb.start();
                if (!p.waitFor(5, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new AssertionError("timed out: " + String.join(" ", command));
                }
                if (p.exitValue() != 0) {
                    throw new CommandFailed(String.join(" ", command)
                            + " exited "
                            + p.exitValue()
                            + ":\n"
                            + Files.readString(err, StandardCharsets.UTF_8));
                }
                return Files.readString(out, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static String run(String... command) {
        return run(Map.of(), command);
    }

    static List<String> overlayNames() {
        List<String> names = new ArrayList<>();
        try (var dirs = Files.list(ROOT.resolve("kustomize/overlays"))) {
            dirs.filter(d -> Files.exists(d.resolve("kustomization.yaml")))
                    .forEach(d -> names.add(d.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        names.sort(null);
        return names;
    }

    /** A command that exited with a non-zero status. */
    static final class CommandFailed extends AssertionError {
        CommandFailed(String message) {
            super(message);
        }
    }
}
