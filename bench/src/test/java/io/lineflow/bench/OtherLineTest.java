package io.lineflow.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.testing.Await;
import io.lineflow.testing.ManagedProcess;

import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The protocol between the bench's JVM and the other line's, with a real child JVM that serves
 * {@link FakeLine}'s rows: no Flink runs, only the requests, the answers and the child's life.
 */
class OtherLineTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private static ManagedProcess child(Path work, String flinkVersion) {
        return ManagedProcess.java(
                "fake-line",
                List.of(),
                System.getProperty("java.class.path"),
                FakeLine.class.getName(),
                List.of(flinkVersion),
                work.resolve("fake-line.log"));
    }

    @Test
    void eachRunGetsItsOwnAnswerAndTheChildEndsWithItsInput(@TempDir Path work) throws Exception {
        ManagedProcess child = child(work, "2.2.0-fake");
        try (OtherLine line = new OtherLine(child, PATIENCE)) {
            assertThat(line.flinkVersion).isEqualTo("2.2.0-fake");
            assertThat(line.run("lineflow")).isEqualTo(new LineRows.Run(1.5, true));
            assertThat(line.run("sql")).isEqualTo(new LineRows.Run(2.5, false));
            assertThat(line.run("lineflow")).isEqualTo(new LineRows.Run(3.5, true));

            assertThat(child.alive()).isTrue();
            child.closeInput();
            Await.until("the child to end at the end of its input", PATIENCE, e -> false, () -> !child.alive());
        }
    }

    @Test
    void aChildOnThisJvmsOwnFlinkIsRefusedAndStopped(@TempDir Path work) {
        String version = EnvironmentInformation.getVersion();
        ManagedProcess child = child(work, version);

        assertThatThrownBy(() -> new OtherLine(child, PATIENCE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--other-line")
                .hasMessageContaining("runs Flink " + version + ", the same as the bench's JVM");
        assertThat(child.alive()).isFalse();
    }

    @Test
    void aChildThatDiesFailsTheRunAtOnceNamingItsLog(@TempDir Path work) {
        ManagedProcess child = child(work, "2.2.0-fake");
        try (OtherLine line = new OtherLine(child, PATIENCE)) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> line.run("die"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("died; see " + work.resolve("fake-line.log"));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(PATIENCE.dividedBy(2));
        }
    }

    @Test
    void anOtherLineFolderWithoutABuildFailsAtStartNamingWhatIsMissing(@TempDir Path build) throws Exception {
        Files.createDirectories(build.resolve("classes"));

        assertThatThrownBy(() -> BenchSettings.parse("--other-line", build.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "--other-line " + build + ": " + build.resolve("bench.classpath") + " is missing");

        Files.writeString(build.resolve("bench.classpath"), "a.jar");
        assertThat(BenchSettings.parse("--other-line", build.toString()).otherLine)
                .isEqualTo(build);
    }
}
