package io.lineflow.job.sink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A sink whose writer is made from a {@link WriterInitContext}, the only way on Flink 2.x. Flink
 * 1.20 still declares the deprecated {@code createWriter(Sink.InitContext)} abstract, but its sink
 * operator calls {@code createWriter(WriterInitContext)}, so the old one is refused here.
 */
interface WriterSink<T> extends Sink<T> {
    @Override
    @Deprecated
    default SinkWriter<T> createWriter(Sink.InitContext context) {
        throw new UnsupportedOperationException(
                "Flink 1.20's sink operator calls createWriter(WriterInitContext); the deprecated"
                        + " createWriter(Sink.InitContext) is gone in 2.x and not supported");
    }

    @Override
    SinkWriter<T> createWriter(WriterInitContext context);
}
