package io.lineflow.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Flink's own Kubernetes HA leader election (1.20.1, ConfigMap lock) in two JVMs, authenticated
 * as the Flink ServiceAccount of manifests/rbac: one leads, the standby waits, and when the leader
 * is killed with SIGKILL (no release of the lock) the standby takes over once the lease expires.
 */
@ExtendWith(KubeApiServerExtension.class)
class FlinkLeaderElectionTest {

    static final String CLUSTER_ID = "lineflow";

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killContenders() {
        started.forEach(Process::destroyForcibly);
    }

    /** One contender JVM and the lines it printed. */
    private record Contender(Process process, BlockingQueue<String> lines) {
        String next(Duration timeout) throws InterruptedException {
            return lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private Contender start(Path kubeconfig, String ns, String identity) {
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + Repo.TARGET,
                "-cp",
                System.getProperty("java.class.path"),
                LeaderContender.class.getName(),
                kubeconfig.toString(),
                ns,
                CLUSTER_ID,
                identity);
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            started.add(p);
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(
                    () -> {
                        try (BufferedReader r =
                                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                            for (String line; (line = r.readLine()) != null; ) {
                                lines.add(line);
                            }
                        } catch (IOException e) {
                            lines.add("READ_FAILED " + e);
                        }
                    },
                    "contender-" + identity);
            reader.setDaemon(true);
            reader.start();
            return new Contender(p, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String awaitLine(Contender c, String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String line = c.next(Duration.ofMillis(200));
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        return null;
    }

    @Test
    void theStandbyTakesOverWhenTheLeaderIsKilled(KubeEnv env) throws Exception {
        String ns = env.newNamespace("lf-ha");
        env.apply(ns, Repo.kustomize(Repo.ROOT.resolve("manifests/rbac")));
        Path kubeconfig = env.kubeconfigFor(ns, "lineflow-flink");

        Contender a = start(kubeconfig, ns, "jm-a");
        assertThat(awaitLine(a, "LEADER", Duration.ofSeconds(60)))
                .as("jm-a elected")
                .isEqualTo("LEADER jm-a");
        Contender b = start(kubeconfig, ns, "jm-b");
        assertThat(awaitLine(b, "STARTED", Duration.ofSeconds(60)))
                .as("jm-b contending")
                .isEqualTo("STARTED jm-b");
        assertThat(awaitLine(b, "LEADER", Duration.ofSeconds(3)))
                .as("jm-b stays standby while jm-a renews")
                .isNull();

        long killedAt = System.nanoTime();
        a.process().destroyForcibly().waitFor();
        assertThat(awaitLine(b, "LEADER", Duration.ofSeconds(30)))
                .as("jm-b takes over")
                .isEqualTo("LEADER jm-b");
        long tookMs = (System.nanoTime() - killedAt) / 1_000_000;

        ConfigMap lock = env.admin()
                .configMaps()
                .inNamespace(ns)
                .withName(CLUSTER_ID + "-cluster-config-map")
                .get();
        assertThat(lock.getMetadata().getAnnotations().get("control-plane.alpha.kubernetes.io/leader"))
                .contains("\"holderIdentity\":\"jm-b\"");
        // Lease 4 s: the takeover waits for the killed leader's lease to expire, and not much longer.
        assertThat(tookMs).isBetween(1_000L, 15_000L);
        System.out.println("FlinkLeaderElectionTest: standby took over " + tookMs + " ms after SIGKILL of the leader");
    }
}
