package io.lineflow.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command to its end: the one process runner of the tests, the drill and the scripts'
 * checks. Output goes to temporary files rather than pipes, so a command that prints a lot cannot
 * block on a full pipe, and a command that hangs is killed at its timeout.
 */
public final class Commands {
    private Commands() {}

    /** What a finished command printed, and how it exited. */
    public record Result(List<String> command, int exit, String out, String err) {
        public boolean ok() {
            return exit == 0;
        }

        /** This result, or {@link CommandFailed} quoting both outputs when the exit is not 0. */
        public Result orFail() {
            if (!ok()) {
                throw new CommandFailed(String.join(" ", command) + " exited " + exit + ":\n" + err + out);
            }
            return this;
        }
    }

    /** A command that exited non-zero or ran past its timeout. */
    public static final class CommandFailed extends RuntimeException {
        public CommandFailed(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code command} in {@code dir} with {@code env} added to this process's environment,
     * {@code stdin} (may be null) as its input, for at most {@code timeout}.
     *
     * @throws CommandFailed when it runs past the timeout (it is killed)
     */
    public static Result exec(Path dir, Map<String, String> env, String stdin, Duration timeout, List<String> command) {
        try {
            Path in = Files.createTempFile("lineflow-cmd", ".in");
            Path out = Files.createTempFile("lineflow-cmd", ".out");
            Path err = Files.createTempFile("lineflow-cmd", ".err");
            try {
                Files.writeString(in, stdin == null ? "" : stdin, StandardCharsets.UTF_8);
                ProcessBuilder pb = new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectInput(in.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile());
                pb.environment().putAll(env);
                Process p = pb.start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor();
                    throw new CommandFailed(String.join(" ", command) + " ran past " + timeout.toSeconds()
                            + " s and was killed:\n" + read(err) + read(out));
                }
                return new Result(List.copyOf(command), p.exitValue(), read(out), read(err));
            } finally {
                for (Path f : List.of(in, out, err)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailed("interrupted: " + String.join(" ", command));
        }
    }

    /** Runs {@code command} in {@code dir}; its standard output, or {@link CommandFailed}. */
    public static String run(Path dir, Duration timeout, List<String> command) {
        return exec(dir, Map.of(), null, timeout, command).orFail().out();
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }
}
