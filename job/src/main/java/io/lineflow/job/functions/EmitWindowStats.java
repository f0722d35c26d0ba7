package io.lineflow.job.functions;

import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Turns a window's accumulator into a {@link DeviceWindowStats} row with the window bounds. */
public class EmitWindowStats
        extends ProcessWindowFunction<WindowAccumulator, DeviceWindowStats, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
            String deviceId,
            Context context,
            Iterable<WindowAccumulator> accumulators,
            Collector<DeviceWindowStats> out) {
        WindowAccumulator acc = accumulators.iterator().next();
        DeviceWindowStats row = new DeviceWindowStats();
        row.deviceId = deviceId;
        row.lineId = acc.lineId;
        row.windowStart = context.window().getStart();
        row.windowEnd = context.window().getEnd();
        row.piecesProduced = acc.pieces;
        row.downtimeCount = acc.downtimeStarts;
        row.eventsSeen = acc.events;
        row.firstEventTs = acc.firstTs;
        row.lastEventTs = acc.lastTs;
        row.transitions = acc.transitions;
        out.collect(row);
    }
}
