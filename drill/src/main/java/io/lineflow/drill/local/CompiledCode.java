package io.lineflow.drill.local;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * Makes a running JVM of the local cluster set its JIT-compiled code aside ({@link
 * DiscardCompiledCode}), through the JDK's attach API: the agent jar is written once into the work
 * folder from the drill's own class.
 *
 * <p>Why the soak needs it: a method compiled while one job ran may have inlined that job's classes
 * (a task's processing loop inlines the operators it calls), and while a frame of that compiled
 * method is on a thread's stack the JVM keeps those classes, and their classloader, alive. The
 * task threads of the next job run the same compiled loop, so a TaskManager can keep the previous
 * job's classloader until the loop is compiled again. That is the JIT's, bounded and not a leak; a
 * classloader that is still there once the compiled code is gone is held by a reference.
 */
public final class CompiledCode {
    static final String AGENT_JAR = "lineflow-discard-compiled-code.jar";

    /**
     * Flink's task loop: a task thread runs {@code runMailboxLoop} from the task's start to its
     * end, and its compiled code inlines the job's operators. Redefining the class sets that code
     * aside on every discard, not only on the first (see {@link DiscardCompiledCode}).
     */
    static final String TASK_LOOP = "org.apache.flink.streaming.runtime.tasks.mailbox.MailboxProcessor";

    private CompiledCode() {}

    /**
     * Makes the JVM {@code pid} set its compiled code aside: all of it the first time, the task
     * loop's and what inlined it every time; returns once the agent has run.
     */
    public static void discard(long pid, Path work) throws IOException {
        discard(pid, work, TASK_LOOP);
    }

    /** Makes the JVM {@code pid} set aside all its compiled code the first time, that of {@code classNames} (a comma list) and what inlined it every time. */
    static void discard(long pid, Path work, String classNames) throws IOException {
        Path jar = agentJar(work);
        try {
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
            try {
                vm.loadAgent(jar.toAbsolutePath().toString(), classNames);
            } finally {
                vm.detach();
            }
        } catch (AttachNotSupportedException | AgentLoadException | AgentInitializationException e) {
            throw new IOException("could not make JVM " + pid + " discard its compiled code: " + e.getMessage(), e);
        }
    }

    static Path agentJar(Path work) throws IOException {
        Path jar = work.resolve(AGENT_JAR);
        if (Files.isRegularFile(jar)) {
            return jar;
        }
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().putValue("Agent-Class", DiscardCompiledCode.class.getName());
        m.getMainAttributes().putValue("Can-Retransform-Classes", "true");
        String entry = DiscardCompiledCode.class.getName().replace('.', '/') + ".class";
        Path tmp = Files.createTempFile(work, "agent", ".jar");
        try (OutputStream out = Files.newOutputStream(tmp);
                JarOutputStream j = new JarOutputStream(out, m);
                InputStream in = DiscardCompiledCode.class.getClassLoader().getResourceAsStream(entry)) {
            if (in == null) {
                throw new IOException("the drill's classes have no " + entry);
            }
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
        return Files.move(tmp, jar, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
}
