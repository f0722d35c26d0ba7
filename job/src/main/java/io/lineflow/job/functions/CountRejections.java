package io.lineflow.job.functions;

import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.event.RejectedEvent;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.Counter;

import java.util.EnumMap;
import java.util.Map;

/**
 * Counts rejected records per reason in the Flink metric {@code rejectedEvents} (one series per
 * {@code reason} label), on their way to the {@code rejected_events} table.
 */
public class CountRejections extends RichMapFunction<RejectedEvent, RejectedEvent> {
    private static final long serialVersionUID = 1L;

    private transient Map<RejectReason, Counter> counters;

    @Override
    public void open(OpenContext openContext) {
        counters = new EnumMap<>(RejectReason.class);
        for (RejectReason reason : RejectReason.values()) {
            counters.put(
                    reason,
                    getRuntimeContext()
                            .getMetricGroup()
                            .addGroup("reason", reason.name())
                            .counter("rejectedEvents"));
        }
    }

    @Override
    public RejectedEvent map(RejectedEvent rejected) {
        counters.get(rejected.reason).inc();
        return rejected;
    }
}
