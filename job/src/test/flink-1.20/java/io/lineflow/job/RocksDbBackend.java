package io.lineflow.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.state.StateBackend;

/** What a test reads of Flink 1.x's embedded RocksDB backend, whose class is in the contrib package on this line. */
record RocksDbBackend(boolean incremental, Object optionsFactory) {
    static RocksDbBackend of(StateBackend backend) {
        assertThat(backend).isInstanceOf(EmbeddedRocksDBStateBackend.class);
        EmbeddedRocksDBStateBackend rocksDb = (EmbeddedRocksDBStateBackend) backend;
        return new RocksDbBackend(rocksDb.isIncrementalCheckpointsEnabled(), rocksDb.getRocksDBOptions());
    }
}
