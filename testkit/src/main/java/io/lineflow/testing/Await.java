package io.lineflow.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;

/**
 * Polls a condition until it holds or a deadline passes, for a step whose effect is not visible as
 * soon as its call returns (a topic's metadata, a partition's leader). An exception the caller calls
 * retriable counts as "not yet"; any other ends the wait at once. Giving up names what was awaited
 * and the last retriable error seen.
 */
public final class Await {
    private static final long POLL_MILLIS = 100;

    private Await() {}

    /** Waits up to {@code timeout} for {@code condition}; {@code what} says what it waits for. */
    public static void until(String what, Duration timeout, Predicate<Throwable> retriable, Callable<Boolean> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Throwable last = null;
        while (true) {
            try {
                if (condition.call()) {
                    return;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                if (!retriable.test(cause)) {
                    throw new IllegalStateException("while waiting for " + what + ": " + cause, cause);
                }
                last = cause;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "gave up after " + timeout.toSeconds() + " s waiting for " + what
                                + (last == null ? "" : "; last retriable error: " + last),
                        last);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
