package io.lineflow.job.event;

import io.lineflow.rules.event.DeviceEvent;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.util.Objects;

/**
 * Flink's type information for {@link DeviceEvent}: gives it the {@link DeviceEventSerializer}.
 * The event is a plain class of the rules module, which knows nothing of Flink, so the pipeline
 * names this type where events leave an operator ({@code LineflowPipeline}); {@code JobGraphTest}
 * checks that every stream of events uses it.
 */
public final class DeviceEventTypeInfo extends SerializerConfigTypeInfo<DeviceEvent> {
    private static final long serialVersionUID = 2L;

    private final String topic;

    /** Type information for events read from {@code topic}, the job's Kafka topic (may be null). */
    public DeviceEventTypeInfo(String topic) {
        this.topic = topic;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<DeviceEvent> getTypeClass() {
        return DeviceEvent.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<DeviceEvent> createSerializer(SerializerConfig config) {
        return new DeviceEventSerializer(topic);
    }

    @Override
    public String toString() {
        return "DeviceEvent";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof DeviceEventTypeInfo && Objects.equals(topic, ((DeviceEventTypeInfo) obj).topic);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(topic);
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof DeviceEventTypeInfo;
    }
}
