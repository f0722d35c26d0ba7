package io.lineflow.deploy;

import io.lineflow.testing.Commands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    /** Where scripts/operator-crds.sh put the operator's CRDs, one folder per release. */
    static final Path OPERATOR_CRDS = Path.of(System.getProperty("lineflow.operator.crds", "target/operator-crds"))
            .toAbsolutePath()
            .normalize();

    private Repo() {}

    static Path overlay(String name) {
        return ROOT.resolve("kustomize/overlays").resolve(name);
    }

    static Path testOverlay(String name) {
        return TEST_RESOURCES.resolve("overlays").resolve(name);
    }

    /** Runs a command from the repository root; returns stdout, fails with stderr on exit != 0. */
    static String run(Map<String, String> env, String... command) {
        return Commands.exec(ROOT, env, null, Duration.ofMinutes(5), List.of(command))
                .orFail()
                .out();
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
}
