package io.lineflow.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

/** What a test reads of Flink 2.x's embedded RocksDB backend, whose class moved to org.apache.flink.state.rocksdb on this line. */
record RocksDbBackend(boolean incremental, Object optionsFactory) {
    static RocksDbBackend of(StateBackend backend) {
        assertThat(backend).isInstanceOf(EmbeddedRocksDBStateBackend.class);
        EmbeddedRocksDBStateBackend rocksDb = (EmbeddedRocksDBStateBackend) backend;
        return new RocksDbBackend(rocksDb.isIncrementalCheckpointsEnabled(), rocksDb.getRocksDBOptions());
    }
}
