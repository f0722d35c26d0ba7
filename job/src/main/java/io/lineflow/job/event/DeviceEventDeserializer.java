package io.lineflow.job.event;

import io.lineflow.job.config.LineflowOptions;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.time.Instant;

/** Kafka deserializer that turns every record into a {@link ParsedRecord}; it never throws. */
public class DeviceEventDeserializer implements KafkaRecordDeserializationSchema<ParsedRecord> {
    private static final long serialVersionUID = 1L;

    private final DeviceEventJson json;

    public DeviceEventDeserializer(DeviceEventJson json) {
        this.json = json;
    }

    /** The parser with the limits of a (validated) configuration's {@code lineflow.events.*}. */
    public static DeviceEventJson parser(ReadableConfig conf) {
        return new DeviceEventJson(
                (int) conf.get(LineflowOptions.MAX_EVENT_SIZE).getBytes(),
                Instant.parse(conf.get(LineflowOptions.EARLIEST_EVENT_TIME)).toEpochMilli(),
                conf.get(LineflowOptions.MAX_FUTURE).toMillis());
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ParsedRecord> out) {
        out.collect(json.parse(
                record.key(),
                record.value(),
                record.topic(),
                record.partition(),
                record.offset(),
                System.currentTimeMillis()));
    }

    @Override
    public TypeInformation<ParsedRecord> getProducedType() {
        return TypeInformation.of(ParsedRecord.class);
    }
}
