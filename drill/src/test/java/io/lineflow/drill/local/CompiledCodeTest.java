package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Await;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/** A running JVM sets its compiled code aside when the soak asks it to, and lets go of what only that code held. */
class CompiledCodeTest {
    /** {@code Compiler.codelist}'s state column: 0 is a compiled method in use. */
    private static final String IN_USE = "0";

    /** {@code Compiler.codelist}'s level column: 1–4 are compiled Java methods (0 is native wrappers, which inline nothing). */
    private static final String COMPILED = "[1-4]";

    private static final String LOOP = PinnedLoop.class.getName() + ".loop(";
    private static final String WARM = PinnedLoop.class.getName() + "$Warm.step(";
    private static final String HELD = "first classloader held";
    private static final String COLLECTED = "first classloader collected";

    /** The first discard in a JVM sets aside every compiled method in use. */
    @Test
    void theFirstDiscardSetsEveryCompiledMethodAside(@TempDir Path work) throws Exception {
        try (Child jvm = new Child()) {
            jvm.send("start");
            jvm.awaitCompiled(LOOP, Set.of());
            Map<String, String> before = inUse(jvm.pid());

            CompiledCode.discard(jvm.pid(), work);

            assertThat(inUse(jvm.pid()).keySet())
                    .as("compiled methods still in use after the discard (compile ids)")
                    .doesNotContainAnyElementsOf(before.keySet());
            assertThat(work.resolve(CompiledCode.AGENT_JAR)).isRegularFile();
        }
    }

    /**
     * Every later discard sets aside the compiled code of the classes with a method on a thread's
     * stack (the loop's); hot code no thread is in stays compiled: the control.
     */
    @Test
    void laterDiscardsSetAsideTheCodeOfWhatIsOnAStack(@TempDir Path work) throws Exception {
        try (Child jvm = new Child()) {
            CompiledCode.discard(jvm.pid(), work);
            jvm.send("start");
            Map<String, String> loop = jvm.awaitCompiled(LOOP, Set.of());
            jvm.send("warm");
            Map<String, String> warm = jvm.awaitCompiled(WARM, Set.of());

            CompiledCode.discard(jvm.pid(), work);

            Map<String, String> after = inUse(jvm.pid());
            assertThat(after.keySet())
                    .as("the loop's compiled code after the discard")
                    .doesNotContainAnyElementsOf(loop.keySet());
            assertThat(after).as("compiled code of a class no thread is in").containsAllEntriesOf(warm);
        }
    }

    /**
     * A classloader that only the loop's compiled code holds (the loop guards on the class it
     * defined, compiled again from a profile that names it after the switch) stays until the
     * discard (the control), then goes: what the soak's classloader verdict relies on.
     */
    @Test
    void aClassloaderOnlyCompiledCodeHoldsGoesWithTheDiscard(@TempDir Path work) throws Exception {
        try (Child jvm = new Child()) {
            jvm.send("start");
            Map<String, String> first = jvm.awaitCompiled(LOOP, Set.of());
            assertThat(jvm.send("switch")).endsWith(HELD);
            jvm.awaitCompiled(LOOP, first.keySet());
            assertThat(jvm.send("gc")).as("before the discard").endsWith(HELD);

            CompiledCode.discard(jvm.pid(), work);

            Await.orFail(
                    Duration.ofSeconds(30),
                    Duration.ofMillis(500),
                    "the first classloader collected after the discard in JVM " + jvm.pid(),
                    () -> jvm.send("gc").endsWith(COLLECTED));
        }
    }

    /**
     * A JVM running {@link PinnedLoop}, ready for an agent (one loaded into a JVM still starting
     * fails), stopped on close.
     */
    private static final class Child implements AutoCloseable {
        private final Process jvm;
        private final Writer commands;
        private final BufferedReader answers;

        Child() throws IOException {
            jvm = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            // Warm.step compiled on its own, never only inlined (and the JVM quiet about it).
                            "-XX:CompileCommand=quiet",
                            "-XX:CompileCommand=dontinline," + PinnedLoop.class.getName() + "$Warm::step",
                            "-cp",
                            System.getProperty("java.class.path"),
                            PinnedLoop.class.getName())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            commands = new OutputStreamWriter(jvm.getOutputStream(), StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
            String ready = answers.readLine();
            if (!"ready".equals(ready)) {
                throw new IllegalStateException("JVM " + pid() + " said " + ready + " where it says ready");
            }
        }

        long pid() {
            return jvm.pid();
        }

        /** Sends a command and returns the JVM's answer. */
        String send(String command) {
            try {
                commands.write(command + "\n");
                commands.flush();
                String answer = answers.readLine();
                if (answer == null) {
                    throw new IllegalStateException("JVM " + pid() + " ended before it answered " + command);
                }
                return answer;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Waits for C2 code (tier 4, which nothing replaces on its own) of {@code method} in use, other than {@code old}; returns it. */
        Map<String, String> awaitCompiled(String method, Set<String> old) {
            AtomicReference<Map<String, String>> found = new AtomicReference<>(Map.of());
            Await.orFail(
                    Duration.ofSeconds(60),
                    Duration.ofMillis(200),
                    method + " compiled by C2 and in use in JVM " + pid()
                            + (old.isEmpty() ? "" : ", other than " + old),
                    () -> {
                        found.set(inUse(pid()).entrySet().stream()
                                .filter(e -> e.getValue().startsWith("4 " + method) && !old.contains(e.getKey()))
                                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
                        return !found.get().isEmpty();
                    });
            return found.get();
        }

        @Override
        public void close() throws IOException, InterruptedException {
            jvm.getOutputStream().close();
            if (!jvm.waitFor(10, TimeUnit.SECONDS)) {
                jvm.destroyForcibly();
            }
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
            // "7 4 0 Spin.main([Ljava/lang/String;)V [0x…]": compile id, level, state, method
            return out.lines()
                    .map(l -> l.trim().split("\\s+"))
                    .filter(f -> f.length >= 4 && f[0].matches("\\d+") && f[1].matches(COMPILED) && f[2].equals(IN_USE))
                    .collect(Collectors.toMap(f -> f[0], f -> f[1] + " " + f[3], (a, b) -> a));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
