package io.lineflow.drill.kubernetes;

import io.lineflow.testing.Commands;

import org.apache.flink.util.TimeUtils;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * kubectl against the cluster of {@code KUBECONFIG}, in one namespace: for what a person does by
 * hand (delete a pod or the deployment, apply an overlay, exec into a container); what the drill
 * reads goes through {@link FlinkCluster}.
 */
final class Kubectl {
    /** Runs a command line to its end and returns what it printed; {@link Commands.CommandFailed} if it fails. */
    interface Runner {
        String run(List<String> command, Duration limit);
    }

    private final String kubectl;
    private final String namespace;
    private final Runner runner;

    Kubectl(String kubectl, String namespace) {
        this(kubectl, namespace, (command, limit) -> Commands.run(Path.of("."), limit, command));
    }

    Kubectl(String kubectl, String namespace, Runner runner) {
        this.kubectl = kubectl;
        this.namespace = namespace;
        this.runner = runner;
    }

    String run(String... args) {
        List<String> command = new ArrayList<>(List.of(kubectl, "-n", namespace, "--request-timeout=30s"));
        command.addAll(List.of(args));
        return runner.run(command, processLimit(args));
    }

    /**
     * How long a kubectl call may run before it is killed: 90 s, plus the wait it was given
     * ({@code --timeout=180s} on a delete that waits).
     */
    static Duration processLimit(String... kubectlArgs) {
        Duration wait = Arrays.stream(kubectlArgs)
                .filter(a -> a.startsWith("--timeout="))
                .map(a -> TimeUtils.parseDuration(a.substring("--timeout=".length())))
                .findFirst()
                .orElse(Duration.ZERO);
        return Duration.ofSeconds(90).plus(wait);
    }

    /** {@code labels} as a label selector for kubectl's {@code -l}. */
    static String selector(Map<String, String> labels) {
        return new TreeMap<>(labels)
                .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }

    /** What {@code kubectl apply} changed, on one line. */
    static String changed(String applyOutput) {
        return applyOutput
                .lines()
                .filter(l -> !l.endsWith(" unchanged"))
                .reduce((a, b) -> a + "; " + b)
                .orElse("nothing changed");
    }
}
