package io.lineflow.drill.local;

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A Java agent that makes a JVM set its JIT-compiled code aside, loaded into a running JobManager
 * or TaskManager by {@link CompiledCode#discard}. It retransforms, unchanged, its own class and the
 * loaded classes its argument names (a comma list). The first class redefinition in a HotSpot JVM
 * marks every compiled method not entrant (the JVM has not recorded which compiled code depends on
 * which method, so it cannot keep any); from then on the JVM records it, and a redefinition marks
 * the compiled code of the classes redefined and of every method that inlined theirs. A frame of
 * compiled code on a thread's stack is deoptimized when the thread returns to it; code that is hot
 * is compiled again within seconds. Uses nothing but the JDK: it runs on the target's class path.
 */
public final class DiscardCompiledCode {
    private DiscardCompiledCode() {}

    public static void agentmain(String args, Instrumentation inst) throws UnmodifiableClassException {
        Set<String> named = args == null || args.isBlank() ? Set.of() : Set.of(args.split(","));
        List<Class<?>> classes = new ArrayList<>(List.of(DiscardCompiledCode.class));
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (named.contains(c.getName()) && inst.isModifiableClass(c)) {
                classes.add(c);
            }
        }
        inst.retransformClasses(classes.toArray(new Class<?>[0]));
    }
}
