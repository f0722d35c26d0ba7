package io.lineflow.job.state;

import io.lineflow.settings.LineflowOptions;

import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.contrib.streaming.state.ConfigurableRocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

import java.util.Collection;

/**
 * RocksDB's options for lineflow's keyed state: everything as Flink sets it, except that each
 * database's MANIFEST is rolled over once it passes {@link LineflowOptions#ROCKSDB_MAX_MANIFEST_SIZE}.
 *
 * <p>The MANIFEST is RocksDB's log of which files make up the database: every flush and every
 * compaction appends to it, and RocksDB starts a new one (holding only the current file list)
 * when the database is opened or the file passes {@code max_manifest_file_size}, 1 GiB by
 * default. An incremental checkpoint flushes every column family and uploads the MANIFEST whole
 * with it, so with the default it grows with every checkpoint for as long as the job runs without
 * a restart: in the soak, about 700 bytes per checkpoint and database, 204 of the 350 KiB a
 * checkpoint held after 20 minutes, and only a restart cut it back. Rolled over at a few KiB
 * instead, it costs one rewrite of the current file list (a few hundred bytes per column family
 * and level here; for very large state, one small local write per flush).
 *
 * <p>{@code JobConfig} names this class as Flink's {@code state.backend.rocksdb.options-factory};
 * the state backend loads it with the job's classloader and configures it with the job's
 * configuration.
 */
public final class BoundedRocksDBManifest implements ConfigurableRocksDBOptionsFactory {
    private static final long serialVersionUID = 1L;

    private long maxManifestBytes =
            LineflowOptions.ROCKSDB_MAX_MANIFEST_SIZE.defaultValue().getBytes();

    @Override
    public BoundedRocksDBManifest configure(ReadableConfig configuration) {
        MemorySize max = configuration.get(LineflowOptions.ROCKSDB_MAX_MANIFEST_SIZE);
        maxManifestBytes = max.getBytes();
        return this;
    }

    /** The size past which a MANIFEST is rolled over. */
    public long maxManifestBytes() {
        return maxManifestBytes;
    }

    @Override
    public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return currentOptions.setMaxManifestFileSize(maxManifestBytes);
    }

    @Override
    public ColumnFamilyOptions createColumnOptions(
            ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
        return currentOptions;
    }
}
