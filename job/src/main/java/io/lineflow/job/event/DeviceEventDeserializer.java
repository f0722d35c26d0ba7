package io.lineflow.job.event;

import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Kafka deserializer that turns every record into a {@link ParsedRecord}; it never throws. */
public class DeviceEventDeserializer implements KafkaRecordDeserializationSchema<ParsedRecord> {
    private static final long serialVersionUID = 1L;

    private final DeviceEventJson json;

    public DeviceEventDeserializer(DeviceEventJson json) {
        this.json = json;
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
