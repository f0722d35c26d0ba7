package io.lineflow.job.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.Await;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.util.ChildFirstClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A TaskManager runs the job's classes, and the PostgreSQL driver packed with them, in a
 * classloader of the job's own, and makes a new one when the job comes back after a restart or an
 * upgrade. Once the job has left, nothing outside may keep that loader.
 */
class DriverReleaseTest {
    /** What a TaskManager does: the job's jar (here its classes and the driver's jar), child first. */
    private static URLClassLoader jobClassLoader() {
        URL classes = PostgresSink.class.getProtectionDomain().getCodeSource().getLocation();
        URL driver = org.postgresql.Driver.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation();
        return new ChildFirstClassLoader(
                new URL[] {classes, driver},
                DriverReleaseTest.class.getClassLoader(),
                CoreOptions.getParentFirstLoaderPatterns(new Configuration()),
                t -> {});
    }

    /** The release-hook half of Flink's library cache: hooks run once, when the job leaves. */
    private static final class Lease implements UserCodeClassLoader {
        private URLClassLoader loader;
        private final Map<String, Runnable> hooks = new LinkedHashMap<>();

        Lease(URLClassLoader loader) {
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

    @Test
    void theJobsClassLoaderIsCollectedOnceTheJobLeaves() throws Exception {
        Lease lease = new Lease(jobClassLoader());
        WeakReference<ClassLoader> released = new WeakReference<>(lease.asClassLoader());
        openedAConnection(lease);

        lease.release();
        lease = null;

        Await.until("the job's classloader to be garbage-collected", Duration.ofSeconds(20), e -> false, () -> {
            System.gc();
            return released.get() == null;
        });
    }

    /** What the sink does on a TaskManager: make its writer (the hook), load the driver (it registers itself). */
    private static void openedAConnection(Lease lease) throws Exception {
        Class<?> sink = lease.asClassLoader().loadClass(PostgresSink.class.getName());
        assertThat(sink.getClassLoader()).as("the sink, loaded for the job").isSameAs(lease.asClassLoader());
        Method hook = sink.getDeclaredMethod("deregisterDriversOnRelease", UserCodeClassLoader.class);
        hook.setAccessible(true);
        hook.invoke(null, lease);
        Class<?> driver = Class.forName("org.postgresql.Driver", true, lease.asClassLoader());
        assertThat(driver.getClassLoader()).as("the driver, loaded for the job").isSameAs(lease.asClassLoader());
    }

    /** Where the driver is Flink's own (in lib/, or a test's classpath) it stays for every job. */
    @Test
    void aDriverOnFlinksClassPathStays() throws Exception {
        assertThat(DriverManager.getDriver("jdbc:postgresql://localhost/lineflow"))
                .isNotNull();
        assertThat(PostgresSink.deregisterOwnDrivers()).isZero();
        assertThat(DriverManager.getDriver("jdbc:postgresql://localhost/lineflow"))
                .isNotNull();
    }
}
