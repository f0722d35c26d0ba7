package io.lineflow.drill.core;

/** The drill's waits between polls and fault steps: an interrupt ends the wait and stays set. */
public final class Pause {
    private Pause() {}

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
