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

    /**
     * How often to poll within {@code deadline}: a twentieth of it (at least 10 ms), at most
     * {@code most}, so that a check's short deadline in a test is polled as finely as a long one.
     */
    public static Duration pollWithin(Duration deadline, Duration most) {
        return Duration.ofMillis(Math.min(most.toMillis(), Math.max(10, deadline.toMillis() / 20)));
    }

    /** As {@link #until}, but a timeout is an error saying {@code what} did not happen. */
    public static void orFail(Duration timeout, Duration poll, String what, BooleanSupplier done) {
        if (!until(timeout, poll, done)) {
            throw new IllegalStateException(what + ": not within " + timeout.toSeconds() + " s");
        }
    }
}
