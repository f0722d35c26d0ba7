package io.lineflow.job.functions;

import io.lineflow.job.event.DeviceEvent;
import io.lineflow.job.event.RejectReason;
import io.lineflow.job.event.RejectedEvent;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import static io.lineflow.testing.TestEvents.piece;
import static org.assertj.core.api.Assertions.assertThat;

class DeduplicateEventsTest {

    private static KeyedOneInputStreamOperatorTestHarness<String, DeviceEvent, DeviceEvent> harness()
            throws Exception {
        KeyedOneInputStreamOperatorTestHarness<String, DeviceEvent, DeviceEvent> h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new DeduplicateEvents(Duration.ofMinutes(10))),
                        e -> e.deviceId,
                        Types.STRING);
        h.open();
        return h;
    }

    private static StreamRecord<DeviceEvent> record(DeviceEvent e, long offset) {
        return new StreamRecord<>(e.at("device-events", 0, offset), e.ts);
    }

    @Test
    void countsARetriedEventOnceAndKeepsTheRepeat() throws Exception {
        try (var h = harness()) {
            h.processElement(record(piece("e1", "d1", 1, 1), 0));
            h.processElement(record(piece("e1", "d1", 1, 1), 1)); // producer retry
            h.processElement(record(piece("e1", "d2", 1, 1), 2)); // same id, other device

            assertThat(h.extractOutputValues()).extracting(e -> e.offset).containsExactly(0L, 2L);
            List<RejectedEvent> dups =
                    h.getSideOutput(DeduplicateEvents.DUPLICATES).stream()
                            .map(StreamRecord::getValue)
                            .collect(Collectors.toList());
            assertThat(dups).hasSize(1);
            assertThat(dups.get(0).reason).isEqualTo(RejectReason.DUPLICATE);
            assertThat(dups.get(0).offset).isEqualTo(1L);
            assertThat(new String(dups.get(0).raw)).contains("\"eventId\":\"e1\"");
        }
    }

    @Test
    void forgetsIdsAfterTheHorizonAndDropsTheirState() throws Exception {
        try (var h = harness()) {
            h.setProcessingTime(0);
            h.processElement(record(piece("e1", "d1", 1, 1), 0));
            h.setProcessingTime(Duration.ofMinutes(5).toMillis());
            h.processElement(record(piece("e1", "d1", 1, 1), 1)); // within 10 min: a repeat
            assertThat(h.numKeyedStateEntries()).isEqualTo(1);

            h.setProcessingTime(Duration.ofMinutes(10).toMillis() + 1);
            h.processElement(record(piece("e1", "d1", 1, 1), 2)); // past it: counted again
            assertThat(h.extractOutputValues()).extracting(e -> e.offset).containsExactly(0L, 2L);
            assertThat(h.getSideOutput(DeduplicateEvents.DUPLICATES)).hasSize(1);

            // The sweep after the last expiry removes every id, and with them the device's state.
            h.setProcessingTime(Duration.ofMinutes(30).toMillis());
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }
}
