package io.lineflow.drill.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.shaded.netty4.io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The option the soak gives its JobManagers reaches the Netty that Flink's REST server uses (the
 * shaded one, whose property names the shading renamed): a JVM started with it has one heap arena,
 * one without it more (the control).
 */
class OneRestArenaTest {
    @Test
    void theOptionLeavesFlinksNettyOneHeapArena() throws Exception {
        assertThat(heapArenas(FlinkProcesses.ONE_REST_ARENA)).isEqualTo(1);
        assertThat(heapArenas(null)).as("without the option").isGreaterThan(1);
    }

    /** The heap arenas of Flink's shaded Netty's default allocator in a JVM started with {@code option}. */
    private static int heapArenas(String option) throws Exception {
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (option != null) {
            cmd.add(option);
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), PrintHeapArenas.class.getName()));
        Process jvm = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as("the JVM ended").isTrue();
        assertThat(out).as("what the JVM printed").matches("\\d+");
        return Integer.parseInt(out);
    }

    /** Prints the number of heap arenas of Flink's shaded Netty's default pooled allocator. */
    public static final class PrintHeapArenas {
        public static void main(String[] args) {
            System.out.println(PooledByteBufAllocator.DEFAULT.metric().numHeapArenas());
        }
    }
}
