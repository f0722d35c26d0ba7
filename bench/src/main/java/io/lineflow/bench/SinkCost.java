package io.lineflow.bench;

import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.job.sink.DeviceWindowStatsStatement;
import io.lineflow.settings.LineflowOptions.SinkMode;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One window close as the sink writes it: a row per device, through the job's own upsert
 * statement, in JDBC batches of the sink's batch size, one connection per sink subtask.
 */
public final class SinkCost {
    private SinkCost() {}

    /** Upserts the window at {@code windowStart} for {@code devices}; returns seconds. */
    public static double windowClose(
            String jdbcUrl, Properties props, int devices, int writers, int batchSize, long windowStart)
            throws Exception {
        DeviceWindowStatsStatement statement = new DeviceWindowStatsStatement(SinkMode.UPSERT);
        List<Connection> connections = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int w = 0; w < writers; w++) {
                connections.add(DriverManager.getConnection(jdbcUrl, props));
            }
            long t0 = System.nanoTime();
            List<Future<?>> parts = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                Connection c = connections.get(w);
                parts.add(pool.submit(() -> {
                    try (PreparedStatement ps = c.prepareStatement(statement.query())) {
                        int pending = 0;
                        for (int d = writer; d < devices; d += writers) {
                            statement.statement(ps, row(d, windowStart));
                            ps.addBatch();
                            if (++pending == batchSize) {
                                ps.executeBatch();
                                pending = 0;
                            }
                        }
                        if (pending > 0) {
                            ps.executeBatch();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : parts) {
                f.get();
            }
            return (System.nanoTime() - t0) / 1e9;
        } finally {
            pool.shutdownNow();
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    private static DeviceWindowStats row(int d, long windowStart) {
        DeviceWindowStats r = new DeviceWindowStats();
        r.deviceId = Workload.device(d);
        r.lineId = "L" + (d % 8 + 1);
        r.windowStart = windowStart;
        r.windowEnd = windowStart + Workload.WINDOW_MILLIS;
        r.piecesProduced = 100;
        r.downtimeCount = d % 4 == 1 ? 1 : 0;
        r.downtimeMillis = d % 4 == 1 ? 3_004 : 0;
        r.eventsSeen = 100;
        r.firstEventTs = windowStart + 1_500;
        r.lastEventTs = windowStart + 298_500;
        return r;
    }
}
