package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Pause;

import java.time.Duration;

/**
 * Watches, from a fault on, for the JobManagers' leader election lock to name a holder other than
 * the one before it: a new leader, also the same pod's restarted JobManager. Read from Flink's own
 * HA record ({@link ClusterPods#leaderHolder}), every half second, until {@link #stop} or the
 * deadline.
 */
final class LeaderWatch {
    private final Thread thread;
    private volatile Long leaderMillis;

    private LeaderWatch(ClusterPods pods, String before, long injectedAt, Duration deadline) {
        long until = injectedAt + deadline.toMillis();
        thread = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted() && System.currentTimeMillis() < until) {
                        String holder = pods.leaderHolder();
                        if (!holder.isEmpty() && !holder.equals(before)) {
                            leaderMillis = System.currentTimeMillis() - injectedAt;
                            return;
                        }
                        Pause.sleep(500);
                    }
                },
                "drill-leadership");
        thread.setDaemon(true);
    }

    /** A watch from {@code injectedAt} (epoch ms) for a holder other than {@code before}. */
    static LeaderWatch start(ClusterPods pods, String before, long injectedAt, Duration deadline) {
        LeaderWatch w = new LeaderWatch(pods, before, injectedAt, deadline);
        w.thread.start();
        return w;
    }

    /** Stops watching: the time from the fault to the new leader, or null if none was seen. */
    Long stop() throws InterruptedException {
        thread.interrupt();
        thread.join();
        return leaderMillis;
    }
}
