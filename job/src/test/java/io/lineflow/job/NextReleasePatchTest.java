package io.lineflow.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lineflow.testing.Commands;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The job's next release ({@code images/job-next/next-release.patch}) still applies to this source
 * tree. Only the e2e image build applies it ({@code scripts/e2e-images.sh}), so without this test a
 * change to the job under the patch would first show there. {@code git apply --check} is stricter
 * than that build's {@code patch} (no fuzz): a hunk that would land a few lines away is worth
 * looking at too.
 */
class NextReleasePatchTest {
    /** The repository root: surefire runs the job's tests in {@code job/}. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Path PATCH = ROOT.resolve("images/job-next/next-release.patch");

    @Test
    void theNextReleasePatchAppliesToThisSourceTree() {
        assertThat(PATCH).isRegularFile();
        // A worktree has a .git file, a clone a .git folder; an unpacked source archive has neither.
        assumeTrue(
                Files.exists(ROOT.resolve(".git")),
                ROOT + " is not a git checkout, so git apply cannot check the patch against it");

        Commands.Result check = Commands.exec(
                ROOT, Map.of(), null, Duration.ofMinutes(1), List.of("git", "apply", "--check", PATCH.toString()));

        assertThat(check.exit())
                .as(
                        "%s no longer applies to the job (update it with the change under it); git apply --check says:%n%s",
                        ROOT.relativize(PATCH), check.err())
                .isZero();
    }
}
