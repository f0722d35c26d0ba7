package io.lineflow.job.functions;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.rules.event.RejectedEvent;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** Sends accepted events on and rejected records to {@link #REJECTED}. */
public class RouteRejected extends ProcessFunction<ParsedRecord, DeviceEvent> {
    private static final long serialVersionUID = 1L;

    public static final OutputTag<RejectedEvent> REJECTED =
            new OutputTag<>("rejected", Types.POJO(RejectedEvent.class));

    @Override
    public void processElement(ParsedRecord record, Context ctx, Collector<DeviceEvent> out) {
        if (record.isAccepted()) {
            out.collect(record.event);
        } else {
            ctx.output(REJECTED, record.rejected);
        }
    }
}
