package io.lineflow.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/** The kit's one wait: retriable errors are "not yet", others end it, giving up names the wait. */
class AwaitTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void pollsThroughRetriableErrorsUntilTheConditionHolds() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Await.until("the third call", LONG, RetriableException.class::isInstance, () -> {
            if (calls.incrementAndGet() < 3) {
                // As Kafka's admin futures fail while a new topic's metadata propagates.
                throw new ExecutionException(new UnknownTopicOrPartitionException("not yet"));
            }
            return true;
        });
        assertThat(calls).hasValue(3);
    }

    @Test
    void anErrorThatIsNotRetriableEndsTheWaitAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> Await.until("a topic", LONG, RetriableException.class::isInstance, () -> {
                    calls.incrementAndGet();
                    throw new ExecutionException(new IllegalArgumentException("bad name"));
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("while waiting for a topic")
                .hasRootCauseInstanceOf(IllegalArgumentException.class);
        assertThat(calls).hasValue(1);
    }

    @Test
    void givingUpSaysWhatWasAwaitedAndTheLastRetriableError() {
        assertThatThrownBy(() -> Await.until("topic t to have a leader", Duration.ZERO, e -> true, () -> {
                    throw new UnknownTopicOrPartitionException("t is unknown");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("waiting for topic t to have a leader")
                .hasMessageContaining("t is unknown");
    }

    @Test
    void aConditionThatNeverHoldsGivesUpAtTheDeadline() {
        assertThatThrownBy(() -> Await.until("never", Duration.ofMillis(300), e -> false, () -> false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("waiting for never")
                .hasNoCause();
    }
}
