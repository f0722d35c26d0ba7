package io.lineflow.job;

import io.lineflow.job.event.DeviceEventTypeInfo;
import io.lineflow.job.functions.CarryDowntime;
import io.lineflow.job.functions.CountDeviceWindows;
import io.lineflow.job.functions.CountRejections;
import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.job.functions.RouteRejected;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.rules.event.RejectedEvent;
import io.lineflow.settings.LineflowOptions;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * lineflow's topology as one function: parsed records in, window rows and rejected records out.
 * The job attaches Kafka and PostgreSQL to it ({@link LineflowJob#attach}); tests give it a bounded
 * Kafka source. It adds operators and changes nothing else about the environment.
 *
 * <p>Every stateful operator has a stable uid, so savepoints and last-state upgrades map state
 * back onto it after a code change. Changing a uid loses that operator's state.
 */
public final class LineflowPipeline {
    private LineflowPipeline() {}

    /** Uids: part of the savepoint format. Do not rename. */
    public static final String SOURCE_UID = "kafka-source";

    public static final String ROUTE_UID = "route-rejected";
    public static final String COUNT_UID = "count-device-windows";
    public static final String DOWNTIME_UID = "carry-downtime";
    public static final String COUNT_REJECTIONS_UID = "count-rejections";
    public static final String STATS_SINK_UID = "device-window-stats-sink";
    public static final String REJECTED_SINK_UID = "rejected-events-sink";

    private static final KeySelector<DeviceEvent, String> BY_DEVICE = e -> e.deviceId;
    private static final KeySelector<DeviceWindowStats, String> ROW_BY_DEVICE = r -> r.deviceId;

    /** The two outputs of the topology. */
    public static final class Outputs {
        public final DataStream<DeviceWindowStats> windows;
        public final DataStream<RejectedEvent> rejected;

        Outputs(DataStream<DeviceWindowStats> windows, DataStream<RejectedEvent> rejected) {
            this.windows = windows;
            this.rejected = rejected;
        }
    }

    /**
     * The one watermark strategy: bounded out-of-orderness with idleness, event time from the
     * event. Rejected records get {@link Long#MIN_VALUE} so that a garbage timestamp can never
     * move the watermark. Give it to {@code env.fromSource}, not to a later operator.
     */
    public static WatermarkStrategy<ParsedRecord> watermarks(ReadableConfig conf) {
        return WatermarkStrategy.<ParsedRecord>forBoundedOutOfOrderness(conf.get(LineflowOptions.OUT_OF_ORDERNESS))
                .withIdleness(conf.get(LineflowOptions.IDLENESS))
                .withTimestampAssigner((record, kafkaTs) -> record.isAccepted() ? record.event.ts : Long.MIN_VALUE);
    }

    /** Builds the topology on {@code records}, which must already carry event-time watermarks. */
    public static Outputs build(DataStream<ParsedRecord> records, ReadableConfig conf) {
        long windowMillis = conf.get(LineflowOptions.WINDOW_SIZE).toMillis();
        long latenessMillis = conf.get(LineflowOptions.ALLOWED_LATENESS).toMillis();

        SingleOutputStreamOperator<DeviceEvent> accepted = records.process(
                        new RouteRejected(), new DeviceEventTypeInfo(conf.get(LineflowOptions.KAFKA_TOPIC)))
                .uid(ROUTE_UID)
                .name("route rejected");

        SingleOutputStreamOperator<DeviceWindowStats> windowed = accepted.keyBy(BY_DEVICE)
                .process(new CountDeviceWindows(
                        conf.get(LineflowOptions.WINDOW_SIZE),
                        conf.get(LineflowOptions.ALLOWED_LATENESS),
                        conf.get(LineflowOptions.IDLE_EMIT)))
                .uid(COUNT_UID)
                .name("count device windows");

        // The rows leave on the subtask that owns their device: still partitioned by device, so
        // the downtime carry needs no second shuffle.
        DataStream<DeviceWindowStats> rows = DataStreamUtils.reinterpretAsKeyedStream(windowed, ROW_BY_DEVICE)
                .process(new CarryDowntime(
                        windowMillis,
                        latenessMillis,
                        conf.get(LineflowOptions.DOWNTIME_SILENT_FILL).toMillis()))
                .uid(DOWNTIME_UID)
                .name("carry downtime");

        DataStream<RejectedEvent> rejected = accepted.getSideOutput(RouteRejected.REJECTED)
                .union(windowed.getSideOutput(CountDeviceWindows.REJECTED))
                .map(new CountRejections())
                .uid(COUNT_REJECTIONS_UID)
                .name("count rejections");

        return new Outputs(rows, rejected);
    }
}
