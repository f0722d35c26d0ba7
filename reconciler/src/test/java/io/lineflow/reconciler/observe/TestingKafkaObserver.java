package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.KafkaObservation;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/** A Kafka fake: a 4-partition topic produced at a fixed rate, read by the clock, with a steady lag. */
public final class TestingKafkaObserver implements KafkaObserver {

    private final Clock clock;
    private final double recordsPerSecond;
    private final long lag;
    private final Duration retention;
    private final long startMillis;
    public final AtomicLong calls = new AtomicLong();

    public TestingKafkaObserver(Clock clock, double recordsPerSecond, long lag, Duration retention) {
        this.clock = clock;
        this.recordsPerSecond = recordsPerSecond;
        this.lag = lag;
        this.retention = retention;
        this.startMillis = clock.millis();
    }

    @Override
    public KafkaObservation observe(String bootstrap, Collection<String> topics, String groupId) {
        calls.incrementAndGet();
        long end = 1_000_000 + (long) ((clock.millis() - startMillis) / 1000.0 * recordsPerSecond);
        return KafkaObservation.builder(bootstrap, topics, groupId, clock.instant())
                .partitions(4)
                .endOffsetSum(end)
                .committedOffsetSum(end - lag)
                .lag(lag)
                .retention(retention)
                .build();
    }

    /** Never asked for: the fake's jobs read topics without dots. */
    @Override
    public Optional<Set<String>> topicNames(String bootstrap) {
        throw new UnsupportedOperationException("the fake broker lists no topics");
    }
}
