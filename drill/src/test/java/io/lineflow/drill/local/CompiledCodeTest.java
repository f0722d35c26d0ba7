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

    /** The first discard in a JVM sets aside every compiled method in use. */
    @Test
    void theFirstDiscardSetsEveryCompiledMethodAside(@TempDir Path work) throws Exception {
        onCompiledHotLoop(pid -> {
            Map<String, String> before = inUse(pid);

            CompiledCode.discard(pid, work, "");

            assertThat(inUse(pid).keySet())
                    .as("compiled methods still in use after the discard (compile ids)")
                    .doesNotContainAnyElementsOf(before.keySet());
            assertThat(work.resolve(CompiledCode.AGENT_JAR)).isRegularFile();
        });
    }

    /**
     * Every later discard sets aside the compiled code of the classes it names (the soak names
     * Flink's task loop); one that names none leaves the loop compiled: the control.
     */
    @Test
    void laterDiscardsSetTheNamedClassesCodeAside(@TempDir Path work) throws Exception {
        onCompiledHotLoop(pid -> {
            CompiledCode.discard(pid, work, "");
            awaitLoopCompiled(pid);

            Map<String, String> loop = loopInUse(pid);
            CompiledCode.discard(pid, work, "");
            assertThat(inUse(pid)).as("a discard that names no class").containsAllEntriesOf(loop);

            CompiledCode.discard(pid, work, HotLoop.class.getName());
            assertThat(inUse(pid).keySet())
                    .as("the loop's compiled code after a discard that names it")
                    .doesNotContainAnyElementsOf(loop.keySet());
        });
    }

    private interface OnPid {
        void run(long pid) throws Exception;
    }

    /** Runs {@code body} on a JVM running {@link HotLoop} once its loop is compiled, and stops the JVM. */
    private static void onCompiledHotLoop(OnPid body) throws Exception {
        Process jvm = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        HotLoop.class.getName())
                .redirectErrorStream(true)
                .start();
        try {
            awaitLoopCompiled(jvm.pid());
            body.run(jvm.pid());
        } finally {
            stop(jvm);
        }
    }

    private static void awaitLoopCompiled(long pid) {
        Await.orFail(
                Duration.ofSeconds(60),
                Duration.ofMillis(200),
                "HotLoop.main compiled by C2 and in use in JVM " + pid,
                () -> !loopInUse(pid).isEmpty());
    }

    /** HotLoop.main compiled by C2 (tier 4, which nothing replaces on its own) and in use. */
    private static Map<String, String> loopInUse(long pid) {
        return inUse(pid).entrySet().stream()
                .filter(e -> e.getValue().startsWith("4 " + HotLoop.class.getName() + ".main("))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static void stop(Process jvm) throws IOException, InterruptedException {
        jvm.getOutputStream().write('\n');
        jvm.getOutputStream().flush();
        if (!jvm.waitFor(10, TimeUnit.SECONDS)) {
            jvm.destroyForcibly();
        }
    }

    /** The compiled methods in use in a JVM: compile id → tier and method, from {@code jcmd <pid> Compiler.codelist}. */
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
                    .collect(Collectors.toMap(f -> f[0], f -> f[1] + " " + f[3], (a, b) -> a));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
