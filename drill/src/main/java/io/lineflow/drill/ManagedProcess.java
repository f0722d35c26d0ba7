package io.lineflow.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM the drill started. Every one is remembered, and a shutdown hook kills those still
 * alive, so a failed or interrupted drill leaves nothing behind — and it only ever touches
 * processes it started itself.
 */
final class ManagedProcess {
    private static final List<ManagedProcess> STARTED = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ManagedProcess::killAll, "drill-process-cleanup"));
    }

    final String name;
    final Path log;
    private final Process process;

    private ManagedProcess(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /** Starts {@code java [jvmArgs] -cp classpath mainClass [args]}, output to {@code log}. */
    static ManagedProcess java(
            String name, List<String> jvmArgs, String classpath, String mainClass, List<String> args, Path log) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            ManagedProcess mp = new ManagedProcess(name, log, p);
            STARTED.add(mp);
            return mp;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    boolean alive() {
        return process.isAlive();
    }

    /** kill -9: no shutdown hooks, no goodbye, as a crashed node or an evicted pod. */
    void kill9() {
        process.destroyForcibly();
        waitGone(30);
    }

    /** A polite stop (SIGTERM), escalating to kill -9 after 30 s. */
    void stop() {
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
