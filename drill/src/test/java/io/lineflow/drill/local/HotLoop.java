package io.lineflow.drill.local;

/** A JVM with a loop that stays on its stack, compiled, until its input ends: what {@link CompiledCodeTest} attaches to. */
public final class HotLoop {
    private static volatile long sum;

    private HotLoop() {}

    public static void main(String[] args) throws Exception {
        for (long i = 0; System.in.available() == 0; i++) {
            sum += i % 7;
        }
    }
}
