package io.lineflow.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A child JVM started by the drill or the benchmark. Every one is remembered, and a shutdown hook
 * kills those still alive, so a failed or interrupted run leaves nothing behind — and it only ever
 * touches processes it started itself.
 */
public final class ManagedProcess {
    private static final List<ManagedProcess> STARTED = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ManagedProcess::killAll, "child-process-cleanup"));
    }

    public final String name;
    public final Path log;
    private final Process process;

    private ManagedProcess(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /** Starts {@code java [jvmArgs] -cp classpath mainClass [args]}, output to {@code log}. */
    public static ManagedProcess java(
            String name, List<String> jvmArgs, String classpath, String mainClass, List<String> args, Path log) {
        return start(name, new ProcessBuilder(javaCommand(jvmArgs, classpath, mainClass, args)), log);
    }

    /** The command line {@link #java} runs: this JVM's {@code java}, for a caller that wraps it. */
    public static List<String> javaCommand(
            List<String> jvmArgs, String classpath, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Starts what {@code builder} describes (its command, environment and working directory), its
     * output appended to {@code log}: for a child that is not a plain JVM of ours.
     */
    public static ManagedProcess start(String name, ProcessBuilder builder, Path log) {
        try {
            Process p = builder.redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            ManagedProcess mp = new ManagedProcess(name, log, p);
            STARTED.add(mp);
            return mp;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Waits until the process has written {@code text}; fails if it dies or takes too long. */
    public void awaitOutput(String text, Duration timeout) {
        awaitLine(line -> line.contains(text), timeout);
    }

    /**
     * Waits until the process has written a line that starts with {@code prefix} and returns the
     * first such line; fails if it dies first or takes too long.
     */
    public String awaitLine(String prefix, Duration timeout) {
        return awaitLine(line -> line.startsWith(prefix), timeout);
    }

    private String awaitLine(Predicate<String> wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            // Latin-1 decodes any byte, so stray output cannot hide a line of ASCII.
            try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
                Optional<String> line = lines.filter(wanted).findFirst();
                if (line.isPresent()) {
                    return line.get();
                }
            } catch (IOException | UncheckedIOException e) {
                // not written yet
            }
            if (!alive()) {
                throw new IllegalStateException(this + " died; see " + log);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + this, e);
            }
        }
        throw new IllegalStateException(this + " not ready within " + timeout + "; see " + log);
    }

    /** Writes {@code line} to the process's standard input. */
    public void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + this + "; see " + log, e);
        }
    }

    /** Closes the process's standard input: a child that reads it sees its end. */
    public void closeInput() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the input of " + this, e);
        }
    }

    /** CPU time (user and system) the process has used so far, as the kernel counts it. */
    public double cpuSeconds() {
        return process.info()
                        .totalCpuDuration()
                        .orElseThrow(() -> new IllegalStateException("the OS does not tell the CPU time of " + this))
                        .toNanos()
                / 1e9;
    }

    /** kill -9: no shutdown hooks, no goodbye, as a crashed node or an evicted pod. */
    public void kill9() {
        process.destroyForcibly();
        waitGone(30);
    }

    /** A polite stop (SIGTERM), escalating to kill -9 after 30 s. */
    public void stop() {
        process.destroy();
        if (!waitGone(30)) {
            kill9();
        }
    }

    private boolean waitGone(int seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static void killAll() {
        for (ManagedProcess p : STARTED) {
            if (p.alive()) {
                p.process.destroyForcibly();
            }
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
