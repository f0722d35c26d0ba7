package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Await;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** A running JVM sets its compiled code aside when the soak asks it to. */
class CompiledCodeTest {
    /** {@code Compiler.codelist}'s state column: 0 is a compiled method in use. */
    private static final String IN_USE = "0";

    @Test
    void everyCompiledMethodInUseIsSetAside(@TempDir Path work) throws Exception {
        Process jvm = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        HotLoop.class.getName())
                .redirectErrorStream(true)
                .start();
        try {
            long pid = jvm.pid();
            Await.orFail(
                    Duration.ofSeconds(60),
                    Duration.ofMillis(200),
                    "HotLoop.main compiled in JVM " + pid,
                    () -> inUse(pid).values().stream().anyMatch(m -> m.startsWith(HotLoop.class.getName() + ".main")));
            Map<String, String> before = inUse(pid);

            CompiledCode.discard(pid, work);

            Map<String, String> after = inUse(pid);
            assertThat(after.keySet())
                    .as("compiled methods still in use after the discard (id → method)")
                    .doesNotContainAnyElementsOf(before.keySet());
            assertThat(work.resolve(CompiledCode.AGENT_JAR)).isRegularFile();
        } finally {
            jvm.getOutputStream().write('\n');
            jvm.getOutputStream().flush();
            if (!jvm.waitFor(10, TimeUnit.SECONDS)) {
                jvm.destroyForcibly();
            }
        }
    }

    /** The compiled methods in use in a JVM: compile id → method, from {@code jcmd <pid> Compiler.codelist}. */
    private static Map<String, String> inUse(long pid) {
        try {
            Process jcmd = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            String.valueOf(pid),
                            "Compiler.codelist")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(jcmd.getInputStream().readAllBytes());
            jcmd.waitFor(30, TimeUnit.SECONDS);
            // "7 4 2 Spin.main([Ljava/lang/String;)V [0x…]": compile id, level, state, method
            return out.lines()
                    .map(l -> l.trim().split("\\s+"))
                    .filter(f -> f.length >= 4 && f[0].matches("\\d+") && f[2].equals(IN_USE))
                    .collect(Collectors.toMap(f -> f[0], f -> f[3], (a, b) -> a));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
