package io.lineflow.bench;

import io.lineflow.flinkrest.CheckpointStats;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;
import io.lineflow.testing.EmbeddedKafka;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Checkpoint cost of lineflow's job holding one open window for each of many devices, with a
 * trickle of new events so that incremental checkpoints have something to write. Figures come
 * from the REST API's checkpoint history (the first two checkpoints, taken while the pre-loaded
 * state was still being read, are left out).
 */
public final class CheckpointCost {
    /**
     * Durations (ms) and sizes (bytes) of the completed checkpoints measured, and the state's size
     * per event held in the open windows.
     */
    public static final class Result {
        public final String backend;
        public final Samples durationMs = new Samples();
        public final Samples fullSize = new Samples();
        public final Samples checkpointedSize = new Samples();
        /**
         * The full state size of the last checkpoint measured over the events then in the open
         * windows: everything in the state (window figures, ids, timers, offsets) per event held.
         */
        public double bytesPerOpenEvent = Double.NaN;

        Result(String backend) {
            this.backend = backend;
        }
    }

    private static final int WARM_UP = 2;

    private CheckpointCost() {}

    /**
     * @param backend {@code hashmap} or {@code rocksdb} (incremental)
     */
    public static Result run(
            FlinkRuns flink, String bootstrap, String jdbcUrl, String user, BenchSettings s, String backend)
            throws Exception {
        String topic = "checkpoint-" + backend;
        EmbeddedKafka.createTopic(bootstrap, topic, s.partitions);
        long ws = Workload.start();
        try (KafkaProducer<byte[], byte[]> producer = Workload.producer(bootstrap)) {
            for (int k = 0; k < s.checkpointEvents; k++) {
                for (int d = 0; d < s.checkpointDevices; d++) {
                    Workload.send(producer, topic, d % s.partitions, event(d, "pre-" + k, ws + 1_000 + k));
                }
            }
            producer.flush();
        }
        Configuration conf = flink.lineflowConfig(
                bootstrap,
                topic,
                jdbcUrl,
                user,
                "execution.checkpointing.interval",
                s.checkpointCostIntervalMs + " ms",
                "execution.checkpointing.min-pause",
                "0 ms",
                "state.backend.type",
                backend,
                "execution.checkpointing.incremental",
                "true");
        AtomicBoolean stop = new AtomicBoolean();
        // (wall-clock ms, events sent so far) after each of the trickle's batches.
        List<long[]> sent = new CopyOnWriteArrayList<>();
        Thread trickle = new Thread(() -> trickle(bootstrap, topic, s, ws, stop, sent), "bench-trickle");
        JobClient job = flink.startLineflow(conf);
        trickle.start();
        Result result = new Result(backend);
        try {
            long deadline = System.nanoTime()
                    + (s.checkpoints + WARM_UP) * s.checkpointCostIntervalMs * 1_000_000L * 5
                    + 180_000_000_000L;
            CheckpointStats stats;
            while (true) {
                // None while the job is still being scheduled.
                stats = flink.checkpointStats(job.getJobID());
                if (stats.counts().completed() >= s.checkpoints + WARM_UP) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            backend + ": only " + stats.counts() + " checkpoints before the deadline");
                }
                Thread.sleep(200);
            }
            List<CheckpointStats.Checkpoint> completed = new ArrayList<>();
            for (CheckpointStats.Checkpoint h : stats.history()) {
                if ("COMPLETED".equals(h.status()) && h.id() > WARM_UP && h.id() <= WARM_UP + s.checkpoints) {
                    completed.add(h);
                }
            }
            for (CheckpointStats.Checkpoint h : completed) {
                result.durationMs.add((double) h.endToEndDuration());
                result.fullSize.add((double) h.stateSize());
                result.checkpointedSize.add((double) h.checkpointedSize());
            }
            completed.sort(Comparator.comparingLong(CheckpointStats.Checkpoint::id));
            if (!completed.isEmpty()) {
                // The job keeps up with ~2,000 events/s, so what was sent before a checkpoint was
                // triggered is in its state, give or take one batch of 200.
                CheckpointStats.Checkpoint last = completed.get(completed.size() - 1);
                long held = (long) s.checkpointDevices * s.checkpointEvents + sentBefore(sent, last.triggerTimestamp());
                result.bytesPerOpenEvent = (double) last.stateSize() / held;
            }
        } finally {
            stop.set(true);
            trickle.join();
            job.cancel().get();
        }
        return result;
    }

    private static long sentBefore(List<long[]> sent, long wallClockMillis) {
        long n = 0;
        for (long[] mark : sent) {
            if (mark[0] <= wallClockMillis) {
                n = mark[1];
            }
        }
        return n;
    }

    /** About 2,000 new events a second, all inside the open window so it never closes. */
    private static void trickle(
            String bootstrap, String topic, BenchSettings s, long ws, AtomicBoolean stop, List<long[]> sent) {
        try (KafkaProducer<byte[], byte[]> producer = Workload.producer(bootstrap)) {
            long seq = 0;
            while (!stop.get()) {
                for (int i = 0; i < 200; i++, seq++) {
                    int d = (int) (seq % s.checkpointDevices);
                    long ts = ws + 10_000 + (seq / s.checkpointDevices) % 200_000;
                    Workload.send(producer, topic, d % s.partitions, event(d, "live-" + seq, ts));
                }
                producer.flush();
                sent.add(new long[] {System.currentTimeMillis(), seq});
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static DeviceEvent event(int d, String suffix, long ts) {
        String device = Workload.device(d);
        return new DeviceEvent(device + "-" + suffix, device, "L1", EventType.PIECE_PRODUCED, ts, 1, null);
    }
}
