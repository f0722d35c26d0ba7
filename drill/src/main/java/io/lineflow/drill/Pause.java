package io.lineflow.drill;

/** The drill's waits between polls and fault steps: an interrupt ends the wait and stays set. */
final class Pause {
    private Pause() {}

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
