package io.lineflow.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Paths of the repository under test and a runner for its scripts and pinned tools. */
final class Repo {
    static final Path ROOT = Path.of(System.getProperty("lineflow.repo.root", ".."))
            .toAbsolutePath()
            .normalize();
    static final Path KUBECTL = ROOT.resolve("bin/kubectl");
    static final Path ENV_SCRIPT = ROOT.resolve("scripts/k8s-test-env.sh");
    static final Path TARGET = ROOT.resolve("k8s-it/target");

    private Repo() {}

    /** What a finished command printed, and how it exited. */
    record Result(int exit, String out, String err) {
        boolean ok() {
            return exit == 0;
        }

        Result orFail(List<String> command) {
            if (!ok()) {
                throw new AssertionError(String.join(" ", command) + " exited " + exit + ":\n" + err + out);
            }
            return this;
        }
    }

    /** Runs {@code command} from the repository root, feeding it {@code stdin} (may be null). */
    static Result exec(String stdin, List<String> command) {
        try {
            Files.createDirectories(TARGET);
            Path in = Files.createTempFile(TARGET, "cmd", ".in");
            Path out = Files.createTempFile(TARGET, "cmd", ".out");
            Path err = Files.createTempFile(TARGET, "cmd", ".err");
            try {
                Files.writeString(in, stdin == null ? "" : stdin, StandardCharsets.UTF_8);
                Process p = new ProcessBuilder(command)
                        .directory(ROOT.toFile())
                        .redirectInput(in.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
                // The first start may build kube-apiserver (about 7-10 minutes on 2 cores).
                if (!p.waitFor(20, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new AssertionError("timed out: " + String.join(" ", command));
                }
                return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(in);
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

    /** Runs a command and returns its stdout; fails the test with stderr on exit != 0. */
    static String run(String... command) {
        return exec(null, List.of(command)).orFail(List.of(command)).out();
    }

    /** The pinned kustomize (kubectl's) rendering of a folder of the repository. */
    static String kustomize(Path dir) {
        return run(KUBECTL.toString(), "kustomize", dir.toString());
    }
}
