package io.lineflow.drill.local;

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A Java agent that makes a JVM set its JIT-compiled code aside, loaded into a running JobManager
 * or TaskManager by {@link CompiledCode#discard}. It retransforms, unchanged, its own class and
 * every class with a method on a thread's stack that an application's loader loaded (not the
 * JDK's own: its loops call into Flink's code, never straight into a job's; nor hidden classes,
 * which cannot be redefined: a lambda's frame only passes a call on).
 *
 * <p>What that does in HotSpot: the first class redefinition in a JVM marks every compiled method
 * not entrant (the JVM has not recorded which compiled code depends on which method, so it cannot
 * keep any); from then on it records that, and a redefinition marks the compiled code of the
 * classes redefined and of every method that inlined theirs. A compiled frame on a stack is
 * deoptimized when its thread next returns to it or passes a safepoint, and goes on as the old
 * version of its method, interpreted: the JVM does not compile a method that was redefined, so the
 * frame cannot be compiled again from the profile the previous job left. Code not on a stack that
 * is hot is compiled again within seconds, from the new versions. Redefining only what is on a
 * stack matters: a frame that was merely deoptimized is compiled again at once from its old
 * profile, which still names the previous job's classes ({@code CompiledCodeTest} shows both).
 * Uses nothing but the JDK: it runs on the target's class path.
 */
public final class DiscardCompiledCode {
    private DiscardCompiledCode() {}

    public static void agentmain(String args, Instrumentation inst) throws UnmodifiableClassException {
        inst.retransformClasses(DiscardCompiledCode.class);
        Set<String> onStack = new HashSet<>();
        for (StackTraceElement[] frames : Thread.getAllStackTraces().values()) {
            for (StackTraceElement f : frames) {
                onStack.add(f.getClassName());
            }
        }
        ClassLoader jdk = ClassLoader.getPlatformClassLoader();
        List<String> failed = new ArrayList<>();
        int redefined = 0;
        for (Class<?> c : inst.getAllLoadedClasses()) {
            ClassLoader loader = c.getClassLoader();
            if (loader == null
                    || loader == jdk
                    || c.isHidden()
                    || c == DiscardCompiledCode.class
                    || !onStack.contains(c.getName())) {
                continue;
            }
            try {
                inst.retransformClasses(c);
                redefined++;
            } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
                failed.add(c.getName() + " (" + e + ")");
            }
        }
        // The JVM's own error output (a Flink process's .err file): what was set aside, what could not be.
        System.err.println("lineflow: set aside the compiled code of " + redefined + " classes on a thread's stack"
                + (failed.isEmpty() ? "" : "; could not redefine " + failed));
    }
}
