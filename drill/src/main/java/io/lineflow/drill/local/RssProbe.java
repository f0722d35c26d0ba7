package io.lineflow.drill.local;

import io.lineflow.drill.soak.SoakRecord;
import io.lineflow.drill.soak.SoakVerdicts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;

/** The resident memory of every live Flink process, as the kernel counts it ({@code VmRSS}). */
record RssProbe(Supplier<List<FlinkProcesses.FlinkProcess>> processes) implements SoakSampler.Probe {
    @Override
    public void sample(long now, SoakRecord record) {
        for (FlinkProcesses.FlinkProcess p : processes.get()) {
            if (p.alive()) {
                rss(p.pid()).ifPresent(bytes -> record.add(SoakVerdicts.RSS, "bytes", p.name(), now, bytes));
            }
        }
    }

    /** The process's resident set in bytes; empty once it is gone. */
    static OptionalLong rss(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return OptionalLong.of(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone
        }
        return OptionalLong.empty();
    }
}
