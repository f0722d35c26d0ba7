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
 * <p>Why the soak needs it: Flink's loops that stay on a thread's stack for as long as a task
 * runs and call the job's code (the task's mailbox loop, {@code MailboxProcessor.runMailboxLoop};
 * the Kafka source's fetcher loop, {@code SplitFetcher.run}; both in Flink's lib, shared by every
 * job) are compiled while one job runs and inline or guard on that job's classes. The next job's
 * threads run the same compiled loops; where the guard fails the loop is compiled again from a
 * profile that names both jobs' classes. While a frame of such code is on a stack the JVM keeps
 * those classes and their classloader alive, so a TaskManager can keep the previous job's
 * classloader for as long as the next job runs. That is the JIT's, bounded (a call site's profile
 * names at most two classes) and not a leak; a classloader still there once the compiled code is
 * set aside is held by a reference.
 */
public final class CompiledCode {
    static final String AGENT_JAR = "lineflow-discard-compiled-code.jar";

    private CompiledCode() {}

    /**
     * Makes the JVM {@code pid} set its compiled code aside: all of it the first time; every time,
     * that of the classes with a method on a thread's stack and of what inlined them. Returns once
     * the agent has run.
     */
    public static void discard(long pid, Path work) throws IOException {
        Path jar = agentJar(work);
        try {
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
            try {
                vm.loadAgent(jar.toAbsolutePath().toString());
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
