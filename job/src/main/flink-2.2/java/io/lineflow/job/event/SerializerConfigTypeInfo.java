package io.lineflow.job.event;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information whose serializer is made from a {@link SerializerConfig}, the only way on Flink 2.x. */
abstract class SerializerConfigTypeInfo<T> extends TypeInformation<T> {
    @Override
    public abstract TypeSerializer<T> createSerializer(SerializerConfig config);
}
