package io.lineflow.testing;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import java.time.Duration;

/** The Flink MiniCluster the job's integration tests run on, defined once. */
public final class TestClusters {
    private TestClusters() {}

    /**
     * Two TaskManagers with one slot each (so the job's parallelism 2 spans two of them, as in
     * production), restarting up to {@code restartAttempts} times half a second apart: a test that
     * needs restarts gets them, and one that asserts none happened sees a real restart strategy.
     */
    public static MiniClusterExtension twoTaskManagers(int restartAttempts) {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restartAttempts);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(2)
                .setNumberSlotsPerTaskManager(1)
                .setConfiguration(c)
                .build());
    }
}
