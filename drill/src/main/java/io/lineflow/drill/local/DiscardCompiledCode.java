package io.lineflow.drill.local;

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;

/**
 * A Java agent that makes a JVM set its JIT-compiled code aside, loaded into a running JobManager
 * or TaskManager by {@link CompiledCode#discard}. It retransforms its own class, unchanged: the
 * first class redefinition in a HotSpot JVM marks every compiled method not entrant (the JVM has
 * not recorded which compiled code depends on which method, so it cannot keep any), and every
 * frame of compiled code on a thread's stack is deoptimized when the thread returns to it. Code
 * that is hot is compiled again within seconds. Uses nothing but the JDK: it runs on the target's
 * class path.
 */
public final class DiscardCompiledCode {
    private DiscardCompiledCode() {}

    public static void agentmain(String args, Instrumentation inst) throws UnmodifiableClassException {
        inst.retransformClasses(DiscardCompiledCode.class);
    }
}
