package io.lineflow.job;

import org.apache.flink.util.UserCodeClassLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * What the job lets go of when a TaskManager releases the job's classloader, so that nothing
 * outside the job keeps that loader, and with it every class of the job, after the job has left.
 *
 * <p>A TaskManager loads the job's jar in a classloader of its own and makes a new one when the job
 * comes back to it after a stop-with-savepoint upgrade or after losing its slots; it drops the old
 * one. Two things outside the job hold on to it, each a few MiB of heap and the classes' metaspace
 * for the life of the TaskManager (measured by the soak, docs/soak.md):
 *
 * <ul>
 *   <li>The PostgreSQL driver packed in the job's jar registers itself with the JDK's {@link
 *       DriverManager}, and nothing deregisters it. The same holds in a JobManager that ran the
 *       job's {@code main} for a submission through the REST API: its schema check loads the driver
 *       in that submission's classloader.
 *   <li>Flink's own long-lived threads started while the job's task was running inherit the task
 *       thread's context classloader, which is the job's. The TaskManager's network client ("Flink
 *       Netty Client") starts its event-loop threads when the first task on it reads a remote
 *       partition, that is during the first job the TaskManager runs, and they live as long as the
 *       TaskManager. Flink's wrapper around the job's loader keeps the loader itself alive through a
 *       JVM-internal dependency that no heap dump shows.
 * </ul>
 */
public final class ClassLoaderRelease {
    private static final Logger LOG = LoggerFactory.getLogger(ClassLoaderRelease.class);
    private static final String HOOK = "lineflow: release the job's classloader";

    private ClassLoaderRelease() {}

    /** Registers the release with the TaskManager, once per classloader whoever asks. */
    public static void registerOn(UserCodeClassLoader loader) {
        loader.registerReleaseHookIfAbsent(HOOK, ClassLoaderRelease::release);
    }

    static void release() {
        deregisterOwnDrivers();
        List<String> handedBack = handBackContextClassLoaders();
        if (!handedBack.isEmpty()) {
            LOG.info("Gave the context classloader of {} back to Flink's classloader as the job left", handedBack);
        }
    }

    /** The classloader Flink itself runs in: where the job's classes live when they are not the job's own. */
    private static ClassLoader flinks() {
        return UserCodeClassLoader.class.getClassLoader();
    }

    /** Whether the job's classes have a classloader of their own (not so on a MiniCluster). */
    private static boolean jobHasOwnLoader() {
        return ClassLoaderRelease.class.getClassLoader() != flinks();
    }

    /**
     * Deregisters the JDBC drivers loaded by the job's own classloader, when the job has one (where
     * the driver is on Flink's classpath it lives as long as the JVM, and other jobs may use it).
     * Returns how many it deregistered. The job's {@code main} calls it once its schema check is done.
     */
    public static int deregisterOwnDrivers() {
        if (!jobHasOwnLoader()) {
            return 0;
        }
        ClassLoader own = ClassLoaderRelease.class.getClassLoader();
        int deregistered = 0;
        // DriverManager lists the drivers its caller's classloader can see: this class's.
        for (Driver d : Collections.list(DriverManager.getDrivers())) {
            if (d.getClass().getClassLoader() == own) {
                try {
                    DriverManager.deregisterDriver(d);
                    deregistered++;
                } catch (SQLException | SecurityException e) {
                    LOG.warn("Could not deregister the JDBC driver {}: the job's classes stay loaded", d, e);
                }
            }
        }
        if (deregistered > 0) {
            LOG.info("Deregistered {} JDBC driver(s) loaded by the job's classloader", deregistered);
        }
        return deregistered;
    }

    /**
     * Sets Flink's classloader as the context classloader of every live thread whose context
     * classloader is the job's own or a loader that resolves the job's classes to the job's own
     * (Flink's wrapper around it), and returns their names. Threads of other jobs, whose loaders
     * load classes of their own, are left alone.
     */
    static List<String> handBackContextClassLoaders() {
        List<String> names = new ArrayList<>();
        if (!jobHasOwnLoader()) {
            return names;
        }
        for (Thread t : liveThreads()) {
            ClassLoader context = t.getContextClassLoader();
            if (context != null && context != flinks() && resolvesToOwn(context)) {
                t.setContextClassLoader(flinks());
                names.add(t.getName());
            }
        }
        return names;
    }

    private static boolean resolvesToOwn(ClassLoader loader) {
        try {
            return Class.forName(ClassLoaderRelease.class.getName(), false, loader) == ClassLoaderRelease.class;
        } catch (ClassNotFoundException | LinkageError | IllegalStateException e) {
            // not the job's (IllegalStateException: a wrapper Flink has already closed)
            return false;
        }
    }

    private static List<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n;
        while ((n = root.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        return Arrays.asList(threads).subList(0, n);
    }
}
