package io.lineflow.job.functions;

import io.lineflow.job.event.DeviceEvent;

import org.apache.flink.api.common.functions.AggregateFunction;

/** Counts a device's events into a {@link WindowAccumulator} as they arrive. */
public class WindowFiguresAggregate
        implements AggregateFunction<DeviceEvent, WindowAccumulator, WindowAccumulator> {
    private static final long serialVersionUID = 1L;

    @Override
    public WindowAccumulator createAccumulator() {
        return new WindowAccumulator();
    }

    @Override
    public WindowAccumulator add(DeviceEvent event, WindowAccumulator acc) {
        acc.lineId = event.lineId;
        acc.add(event.type, event.ts, event.count);
        return acc;
    }

    @Override
    public WindowAccumulator getResult(WindowAccumulator acc) {
        return acc;
    }

    @Override
    public WindowAccumulator merge(WindowAccumulator a, WindowAccumulator b) {
        a.merge(b);
        return a;
    }
}
