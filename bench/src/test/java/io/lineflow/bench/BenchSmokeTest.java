package io.lineflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.testing.KafkaBrokerMain;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The harness on tiny sizes: every row measures something and the report is written (no timings asserted). */
class BenchSmokeTest {
    @Test
    void everyRowMeasuresSomethingAndTheReportIsWritten() throws Exception {
        Path report = Path.of("target", "bench-smoke", "bench-report.md");
        Path brokerLog = Path.of("target", "bench-smoke", "kafka.log");
        Files.deleteIfExists(report);
        Files.deleteIfExists(brokerLog);
        BenchSettings s = BenchSettings.parse(
                "--events",
                "4000",
                "--devices",
                "40",
                "--events-per-window",
                "20",
                "--warmups",
                "1",
                "--repeats",
                "2",
                "--checkpoint-interval",
                "500 ms",
                "--checkpoint-devices",
                "200",
                "--checkpoints",
                "2",
                "--checkpoint-cost-interval",
                "300 ms",
                "--sink-devices",
                "100",
                "--work-dir",
                "target/bench-smoke",
                "--report",
                report.toString());

        String text = Bench.run(s);

        assertThat(report).exists();
        assertThat(Files.readString(report)).isEqualTo(text);
        assertThat(text)
                .contains(
                        "consume limit",
                        "lineflow job",
                        "Flink SQL",
                        "Flink SQL with lineflow's dedup",
                        "per core",
                        "checkpoint, HashMap",
                        "checkpoint, RocksDB incremental",
                        "sink: upsert one window close")
                .contains("(table checked: exact)")
                .doesNotContain("NOT exact", "NOT complete", "no completed checkpoint", "| 0 ev/s");
        assertThat(text.lines().filter(l -> l.matches("\\| (1|2|3|3b|4a|4b|4c|4d) \\|.*")))
                .hasSize(8)
                .allSatisfy(l -> assertThat(l).containsPattern("\\| [1-9][0-9,]* ev/s \\|"));
        // The broker ran as a process of its own (only such a broker writes kafka.log; row 4d is its CPU).
        assertThat(brokerLog).content().contains(KafkaBrokerMain.READY);
        // The job's threads are part of the JVM: per CPU-second of theirs, more events than per the JVM's.
        assertThat(rate(text, "4c")).isGreaterThan(rate(text, "4b"));
        // Two rounds, the second in reverse order: each ratio is a median of two pairs, with their range.
        assertThat(text.lines().filter(l -> l.matches("\\| (2|3|3b) \\|.*")))
                .hasSize(3)
                .allSatisfy(l -> assertThat(l).containsPattern("\\([0-9]+\\.[0-9]{2}–[0-9]+\\.[0-9]{2}, n=2\\) \\|$"));
    }

    /** The rate in the row numbered {@code row}, in events/s. */
    private static long rate(String report, String row) {
        String line = report.lines()
                .filter(l -> l.startsWith("| " + row + " |"))
                .findFirst()
                .orElseThrow();
        Matcher m = Pattern.compile("\\| ([1-9][0-9,]*) ev/s \\|").matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
