package io.lineflow.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.Await;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.util.FlinkUserCodeClassLoaders;
import org.apache.flink.util.MutableURLClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A TaskManager runs the job's classes, and the PostgreSQL driver packed with them, in a
 * classloader of the job's own, and makes a new one when the job comes back after a restart or an
 * upgrade. Once the job has left, nothing outside may keep that loader.
 */
class ClassLoaderReleaseTest {
    private final CountDownLatch end = new CountDownLatch(1);
    private final List<Thread> started = new ArrayList<>();

    /**
     * What a TaskManager makes: the job's jar (here its classes and the driver's jar) in a child-first
     * loader, inside Flink's wrapper, which the task threads get as their context classloader.
     */
    private static MutableURLClassLoader jobClassLoader() {
        URL classes =
                ClassLoaderRelease.class.getProtectionDomain().getCodeSource().getLocation();
        URL driver = org.postgresql.Driver.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation();
        return FlinkUserCodeClassLoaders.childFirst(
                new URL[] {classes, driver},
                ClassLoaderReleaseTest.class.getClassLoader(),
                CoreOptions.getParentFirstLoaderPatterns(new Configuration()),
                t -> {},
                true);
    }

    /** The release-hook half of Flink's library cache: hooks run once, when the job leaves, then the loader closes. */
    private static final class Lease implements UserCodeClassLoader {
        private MutableURLClassLoader loader;
        private final Map<String, Runnable> hooks = new LinkedHashMap<>();

        Lease(MutableURLClassLoader loader) {
            this.loader = loader;
        }

        @Override
        public ClassLoader asClassLoader() {
            return loader;
        }

        @Override
        public void registerReleaseHookIfAbsent(String name, Runnable hook) {
            hooks.putIfAbsent(name, hook);
        }

        void release() throws Exception {
            hooks.values().forEach(Runnable::run);
            hooks.clear();
            loader.close();
            loader = null;
        }
    }

    @AfterEach
    void stopThreads() throws InterruptedException {
        end.countDown();
        for (Thread t : started) {
            t.join();
        }
    }

    @Test
    void theJobsClassLoaderIsCollectedOnceTheJobLeaves() throws Exception {
        Lease lease = new Lease(jobClassLoader());
        WeakReference<ClassLoader> released = new WeakReference<>(ranTheJob(lease));
        Thread network = startedDuring(lease, "Flink Netty Client (0) Thread 0");

        lease.release();
        lease = null;

        // Flink's wrapper closes, but the thread still holding it would keep the job's loader through
        // the JVM's record that the wrapper loaded the job's classes: no heap reference, so no heap dump shows it.

        Await.until("the job's classloader to be garbage-collected", Duration.ofSeconds(20), e -> false, () -> {
            System.gc();
            return released.get() == null;
        });
        assertThat(network.getContextClassLoader())
                .as("the long-lived thread's context classloader after the release")
                .isSameAs(UserCodeClassLoader.class.getClassLoader());
    }

    @Test
    void aThreadOfAnotherJobKeepsItsContextClassLoader() throws Exception {
        Lease leaving = new Lease(jobClassLoader());
        Lease staying = new Lease(jobClassLoader());
        ranTheJob(leaving);
        ranTheJob(staying);
        Thread other = startedDuring(staying, "the other job's thread");

        leaving.release();

        assertThat(other.getContextClassLoader()).isSameAs(staying.asClassLoader());
        staying.release();
    }

    /** Where the job's classes are Flink's own (a test's classpath), the driver stays for every job and no thread is touched. */
    @Test
    void onFlinksClassPathNothingIsReleased() throws Exception {
        Thread t = startedDuring(new Lease(jobClassLoader()), "a thread of a job on Flink's classpath");
        assertThat(DriverManager.getDriver("jdbc:postgresql://localhost/lineflow"))
                .isNotNull();

        assertThat(ClassLoaderRelease.deregisterOwnDrivers()).isZero();
        assertThat(ClassLoaderRelease.handBackContextClassLoaders()).isEmpty();

        assertThat(DriverManager.getDriver("jdbc:postgresql://localhost/lineflow"))
                .isNotNull();
        assertThat(t.getContextClassLoader()).isNotSameAs(UserCodeClassLoader.class.getClassLoader());
    }

    /**
     * What the job does on a TaskManager: the sink registers the release and loads the driver (which
     * registers itself with the JDK). Returns the job's own classloader, inside Flink's wrapper.
     */
    private static ClassLoader ranTheJob(Lease lease) throws Exception {
        Class<?> release = lease.asClassLoader().loadClass(ClassLoaderRelease.class.getName());
        assertThat(release.getClassLoader())
                .as("the job's classes, loaded for the job")
                .isNotSameAs(lease.asClassLoader())
                .isNotSameAs(ClassLoaderRelease.class.getClassLoader());
        Method register = release.getMethod("registerOn", UserCodeClassLoader.class);
        register.invoke(null, lease);
        Class<?> driver = Class.forName("org.postgresql.Driver", true, lease.asClassLoader());
        assertThat(driver.getClassLoader()).as("the driver, loaded for the job").isSameAs(release.getClassLoader());
        return release.getClassLoader();
    }

    /** A thread started by Flink's code on a task thread, which has the job's wrapper as its context classloader. */
    private Thread startedDuring(Lease lease, String name) {
        Thread task = Thread.currentThread();
        ClassLoader before = task.getContextClassLoader();
        task.setContextClassLoader(lease.asClassLoader());
        try {
            Thread t = new Thread(
                    () -> {
                        try {
                            end.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    name);
            t.setDaemon(true);
            t.start();
            started.add(t);
            return t;
        } finally {
            task.setContextClassLoader(before);
        }
    }
}
