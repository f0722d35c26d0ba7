package io.lineflow.job.sink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/** A sink whose writer is made from a {@link WriterInitContext}, the only way on Flink 2.x. */
interface WriterSink<T> extends Sink<T> {
    @Override
    SinkWriter<T> createWriter(WriterInitContext context);
}
