package io.lineflow.job.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.settings.LineflowOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The MANIFEST of a RocksDB database opened with lineflow's options stays within its bound while
 * flushes (one per incremental checkpoint in the job) and the compactions they trigger keep
 * appending to it; with RocksDB's own options it grows with every flush.
 */
class BoundedRocksDBManifestTest {
    private static final int FLUSHES = 300;

    @Test
    void theManifestIsRolledOverPastTheBound(@TempDir Path dir) throws Exception {
        Configuration conf = new Configuration();
        conf.set(LineflowOptions.ROCKSDB_MAX_MANIFEST_SIZE, MemorySize.parse("4 kb"));
        BoundedRocksDBManifest factory = (BoundedRocksDBManifest) new BoundedRocksDBManifest().configure(conf);

        long bounded = manifestBytesAfterFlushes(dir.resolve("bounded"), factory);
        long unbounded = manifestBytesAfterFlushes(dir.resolve("unbounded"), null);

        // Past the bound, the next edit starts a new MANIFEST holding the current file list only.
        assertThat(bounded).as("MANIFEST bytes with a 4 KiB bound").isLessThan(8 * 1024);
        // The control: the same flushes under RocksDB's 1 GiB limit leave a log of all of them.
        assertThat(unbounded).as("MANIFEST bytes under RocksDB's own limit").isGreaterThan(16 * 1024);
    }

    /** Writes and flushes {@link #FLUSHES} times, replacing and deleting keys as window state does. */
    private static long manifestBytesAfterFlushes(Path path, BoundedRocksDBManifest factory) throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(path);
        List<AutoCloseable> handles = new ArrayList<>();
        DBOptions db = new DBOptions().setCreateIfMissing(true);
        handles.add(db);
        if (factory != null) {
            db = factory.createDBOptions(db, handles);
        }
        ColumnFamilyOptions columns = new ColumnFamilyOptions();
        handles.add(columns);
        try (Options options = new Options(db, columns);
                RocksDB rocks = RocksDB.open(options, path.toString());
                FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            for (int i = 0; i < FLUSHES; i++) {
                rocks.put(key(i % 20), ("window " + i).getBytes(StandardCharsets.UTF_8));
                if (i >= 20) {
                    rocks.delete(key((i - 20) % 20));
                }
                rocks.flush(flush);
            }
            return manifestBytes(path);
        } finally {
            for (AutoCloseable h : handles) {
                h.close();
            }
        }
    }

    private static byte[] key(int i) {
        return ("device-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static long manifestBytes(Path path) throws IOException {
        try (Stream<Path> files = Files.list(path)) {
            return files.filter(f -> f.getFileName().toString().startsWith("MANIFEST-"))
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
    }
}
