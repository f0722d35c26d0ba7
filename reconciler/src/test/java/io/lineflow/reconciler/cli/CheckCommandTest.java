package io.lineflow.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.act.Reports;
import io.lineflow.reconciler.observe.TestingFlinkRestServer;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** `check --rest-url` against a fake Flink REST server: JSON report and exit code by worst severity. */
class CheckCommandTest {

    private TestingFlinkRestServer server;

    @BeforeEach
    void start() throws IOException {
        server = new TestingFlinkRestServer();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private record Run(int exit, String out) {}

    private Run check(String... extra) throws InterruptedException {
        String[] base = {"--rest-url", server.url(), "--output", "json", "--set", "check.sample-gap=0 s"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = CheckCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void healthyJobExitsZeroWithAHealthyJsonReport() throws Exception {
        server.runningJob(System.currentTimeMillis(), 100, 4, false);
        Run r = check();
        JsonNode report = Reports.JSON.readTree(r.out());
        assertThat(report.get(0).get("status").asText()).isEqualTo("HEALTHY");
        assertThat(r.exit()).isZero();
    }

    @Test
    void jobWithoutCheckpointingExitsTwoWithCheckpointingDisabled() throws Exception {
        server.runningJob(System.currentTimeMillis(), 100, 4, false).remove("/jobs/j1/checkpoints/config");
        Run r = check();
        assertThat(r.out()).contains("CHECKPOINTING_DISABLED");
        assertThat(r.exit()).isEqualTo(2);
    }

    @Test
    void doubledReadersAreReportedAsDuplicateConsumption() throws Exception {
        server.runningJob(System.currentTimeMillis(), 100, 4, true);
        Run r = check();
        assertThat(r.out()).contains("DUPLICATE_CONSUMPTION");
        assertThat(r.exit()).isEqualTo(2);
    }

    @Test
    void unreachableRestUrlIsAWarningNotACrash() throws Exception {
        server.close();
        Run r = check();
        assertThat(r.out()).contains("OBSERVATION_FAILED");
        assertThat(r.exit()).isEqualTo(1);
    }
}
