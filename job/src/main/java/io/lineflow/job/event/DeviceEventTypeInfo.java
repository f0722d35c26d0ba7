package io.lineflow.job.event;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

import java.lang.reflect.Type;
import java.util.Map;

/**
 * Flink's type information for {@link DeviceEvent}: gives it the {@link DeviceEventSerializer}.
 * Found through the {@code @TypeInfo} annotation on the class, so every stream of events uses it.
 */
public final class DeviceEventTypeInfo extends TypeInformation<DeviceEvent> {
    private static final long serialVersionUID = 1L;

    /** Named in {@code @TypeInfo} on {@link DeviceEvent}. */
    public static final class Factory extends TypeInfoFactory<DeviceEvent> {
        @Override
        public TypeInformation<DeviceEvent> createTypeInfo(
                Type type, Map<String, TypeInformation<?>> genericParameters) {
            return new DeviceEventTypeInfo();
        }
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
    public TypeSerializer<DeviceEvent> createSerializer(ExecutionConfig config) {
        return new DeviceEventSerializer();
    }

    @Override
    public String toString() {
        return "DeviceEvent";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof DeviceEventTypeInfo;
    }

    @Override
    public int hashCode() {
        return DeviceEventTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof DeviceEventTypeInfo;
    }
}
