package io.lineflow.drill.local;

import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakVerdicts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * RocksDB's files on disk: the TaskManagers' working files under {@code work/rocksdb} (and of
 * them the MANIFEST files, uploaded whole with every incremental checkpoint and bounded by the
 * job's options factory), and the job's retained checkpoints under {@code work/checkpoints/<job>}.
 */
record RocksDbProbe(Path work, Supplier<String> jobId) implements SoakSampler.Probe {
    @Override
    public void sample(long now, SoakRecord record) {
        Path workingFiles = work.resolve("rocksdb");
        long[] local = sizeAndCount(workingFiles, f -> true);
        long[] manifests =
                sizeAndCount(workingFiles, f -> f.getFileName().toString().startsWith("MANIFEST-"));
        long[] retained = sizeAndCount(work.resolve("checkpoints").resolve(jobId.get()), f -> true);
        record.add(SoakVerdicts.ROCKSDB_BYTES, "bytes", "TaskManagers' working files", now, local[0]);
        record.add(SoakVerdicts.ROCKSDB_BYTES, "bytes", "of them MANIFEST files", now, manifests[0]);
        record.add(SoakVerdicts.ROCKSDB_BYTES, "bytes", "retained checkpoints of the job", now, retained[0]);
        record.add(SoakVerdicts.ROCKSDB_FILES, "files", "TaskManagers' working files", now, local[1]);
        record.add(SoakVerdicts.ROCKSDB_FILES, "files", "retained checkpoints of the job", now, retained[1]);
    }

    /** The bytes and the number of the regular files under {@code dir} that {@code which} selects; 0 and 0 without it. */
    static long[] sizeAndCount(Path dir, Predicate<Path> which) {
        long[] out = new long[2];
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.filter(f -> Files.isRegularFile(f) && which.test(f)).forEach(f -> {
                try {
                    out[0] += Files.size(f);
                    out[1]++;
                } catch (IOException e) {
                    // deleted while walked
                }
            });
        } catch (IOException | RuntimeException e) {
            // a folder deleted while walked
        }
        return out;
    }
}
