package io.lineflow.drill.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.ref.WeakReference;
import java.util.function.LongUnaryOperator;

/**
 * What {@link CompiledCodeTest} attaches to: a JVM whose loop, on a thread of its own that never
 * leaves it, calls a class a classloader of the JVM's own defined (as a Flink loop calls a job's
 * code). Commands on standard input, each answered with a line that says whether the first
 * classloader is still held: {@code start} starts the loop; {@code switch} gives the loop the same
 * class from a second classloader and drops the first; {@code warm} runs {@link Warm} (hot code no
 * thread is in afterwards) to its end; {@code gc} collects. It says {@code ready} first; the end of
 * input ends the JVM.
 */
public final class PinnedLoop {
    private static volatile LongUnaryOperator step;
    private static volatile long sum;

    private PinnedLoop() {}

    public static void main(String[] args) throws Exception {
        ClassLoader first = new OwnLoader();
        step = newStep(first);
        WeakReference<ClassLoader> held = new WeakReference<>(first);
        first = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("ready");
        for (String line; (line = in.readLine()) != null; ) {
            switch (line) {
                case "start" -> {
                    Thread t = new Thread(PinnedLoop::loop, "loop");
                    t.setDaemon(true);
                    t.start();
                }
                case "switch" -> step = newStep(new OwnLoader());
                case "warm" -> sum += Warm.run();
                case "gc" -> System.gc();
                default -> throw new IllegalArgumentException("unknown command " + line);
            }
            System.out.println(line + ": first classloader " + (held.get() == null ? "collected" : "held"));
        }
    }

    private static void loop() {
        for (long i = 0; ; i++) {
            sum += step.applyAsLong(i);
        }
    }

    private static LongUnaryOperator newStep(ClassLoader loader) throws ReflectiveOperationException {
        return (LongUnaryOperator)
                loader.loadClass(Step.class.getName()).getDeclaredConstructor().newInstance();
    }

    /** The job's code: each {@link OwnLoader} defines its own copy. */
    public static final class Step implements LongUnaryOperator {
        @Override
        public long applyAsLong(long x) {
            return (x * 31) ^ (x >>> 3);
        }
    }

    /** Hot for three seconds, then never on a stack again; the JVM is told not to inline {@link #step}. */
    static final class Warm {
        static long run() {
            long s = 0;
            for (long end = System.nanoTime() + 3_000_000_000L; System.nanoTime() < end; ) {
                s = step(s);
            }
            return s;
        }

        static long step(long s) {
            return s + s % 7 + 1;
        }
    }

    /** Defines {@link Step} itself, from the class path's bytes; asks its parent for every other class. */
    private static final class OwnLoader extends ClassLoader {
        OwnLoader() {
            super(PinnedLoop.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(Step.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                try (InputStream bytes = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    byte[] b = bytes.readAllBytes();
                    return defineClass(name, b, 0, b.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }
}
