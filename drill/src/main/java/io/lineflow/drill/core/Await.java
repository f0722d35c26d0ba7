package io.lineflow.drill.core;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** The drill's one wait: a condition polled until it holds or a deadline passes. */
public final class Await {
    private Await() {}

    /** Polls {@code done} every {@code poll}; true once it holds, false when {@code timeout} passed first. */
    public static boolean until(Duration timeout, Duration poll, BooleanSupplier done) {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            Pause.sleep(poll.toMillis());
        }
        return true;
    }

    /** As {@link #until}, but a timeout is an error saying {@code what} did not happen. */
    public static void orFail(Duration timeout, Duration poll, String what, BooleanSupplier done) {
        if (!until(timeout, poll, done)) {
            throw new IllegalStateException(what + ": not within " + timeout.toSeconds() + " s");
        }
    }
}
