package io.lineflow.job.event;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information whose serializer is made from a {@link SerializerConfig}, the only way on Flink
 * 2.x. Flink 1.20 still declares {@code createSerializer(ExecutionConfig)} abstract: it is answered
 * from the execution config's serializer config.
 */
abstract class SerializerConfigTypeInfo<T> extends TypeInformation<T> {
    @Override
    public abstract TypeSerializer<T> createSerializer(SerializerConfig config);

    @Override
    @Deprecated
    public final TypeSerializer<T> createSerializer(ExecutionConfig config) {
        return createSerializer(config.getSerializerConfig());
    }
}
