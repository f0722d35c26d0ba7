package io.lineflow.k8s;

import io.lineflow.testing.Commands;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Paths of the repository under test and a runner for its scripts and pinned tools. */
final class Repo {
    static final Path ROOT = Path.of(System.getProperty("lineflow.repo.root", ".."))
            .toAbsolutePath()
            .normalize();
    static final Path KUBECTL = ROOT.resolve("bin/kubectl");
    static final Path ENV_SCRIPT = ROOT.resolve("scripts/k8s-test-env.sh");
    static final Path TARGET = ROOT.resolve("k8s-it/target");

    private Repo() {}

    /**
     * Runs {@code command} from the repository root, feeding it {@code stdin} (may be null). The
     * first start may build kube-apiserver (about 7-10 minutes on 2 cores).
     */
    static Commands.Result exec(String stdin, List<String> command) {
        return Commands.exec(ROOT, Map.of(), stdin, Duration.ofMinutes(20), command);
    }

    /** Runs a command and returns its stdout; fails the test with stderr on exit != 0. */
    static String run(String... command) {
        return exec(null, List.of(command)).orFail().out();
    }

    /** The pinned kustomize (kubectl's) rendering of a folder of the repository. */
    static String kustomize(Path dir) {
        return run(KUBECTL.toString(), "kustomize", dir.toString());
    }
}
