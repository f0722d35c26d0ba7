package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lineflow.testing.Commands;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every shell script of the repository passes shellcheck: the scripts run CI's end-to-end test and
 * the image builds, where a quoting slip shows only on a machine that takes the other branch. A
 * machine without shellcheck fails here rather than passing unchecked; LINEFLOW_SKIP_SHELLCHECK=1
 * skips the test (reported as skipped) where installing it is not an option.
 */
class ShellcheckTest {

    @Test
    void everyShellScriptPassesShellcheck() throws IOException {
        assumeFalse(
                "1".equals(System.getenv("LINEFLOW_SKIP_SHELLCHECK")),
                "LINEFLOW_SKIP_SHELLCHECK=1: the shell scripts are not checked");
        if (!onPath("shellcheck")) {
            fail("shellcheck not installed: apt-get install shellcheck (make test-tools does as root;"
                    + " LINEFLOW_SKIP_SHELLCHECK=1 skips this test)");
        }
        List<String> scripts = scripts();
        assertThat(scripts).contains("scripts/lib.sh", ".ci/run");

        List<String> command = new ArrayList<>(List.of("shellcheck", "--external-sources"));
        command.addAll(scripts);
        // From the root, so that `# shellcheck source=scripts/…` directives resolve.
        Commands.Result result = Commands.exec(Repo.ROOT, Map.of(), null, Duration.ofMinutes(2), command);
        assertThat(result.exit())
                .as("shellcheck on %s:%n%s%s", scripts, result.out(), result.err())
                .isZero();
    }

    /** The *.sh files under scripts/ and images/ (not their build output), and CI's entry point, relative to the root. */
    private static List<String> scripts() throws IOException {
        List<String> scripts = new ArrayList<>();
        for (String dir : List.of("scripts", "images")) {
            try (Stream<Path> files = Files.walk(Repo.ROOT.resolve(dir))) {
                files.filter(f -> f.getFileName().toString().endsWith(".sh") && Files.isRegularFile(f))
                        // Build output (images/flink-standin/target) holds copies of the sources.
                        .filter(f -> !Repo.ROOT.relativize(f).toString().contains("/target/"))
                        .map(f -> Repo.ROOT.relativize(f).toString())
                        .forEach(scripts::add);
            }
        }
        scripts.sort(null);
        scripts.add(".ci/run");
        return scripts;
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
    }
}
