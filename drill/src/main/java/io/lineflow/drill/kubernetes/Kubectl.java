package io.lineflow.drill.kubernetes;

import io.lineflow.testing.Commands;

import org.apache.flink.util.TimeUtils;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** kubectl against the cluster of {@code KUBECONFIG}, in one namespace. */
final class Kubectl {
    /** The FlinkDeployment the e2e overlay deploys. */
    static final String FD = "flinkdeployment/lineflow";

    static final String JM = "app=lineflow,component=jobmanager";
    static final String TM = "app=lineflow,component=taskmanager";

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

    /** {@code kubectl get …}, empty when it fails (e.g. the API server is restarting). */
    Optional<String> get(String... args) {
        List<String> a = new ArrayList<>(List.of("get"));
        a.addAll(List.of(args));
        try {
            return Optional.of(run(a.toArray(String[]::new)).trim());
        } catch (Commands.CommandFailed e) {
            return Optional.empty();
        }
    }

    String fd(String jsonpath) {
        return get(FD, "-o", "jsonpath=" + jsonpath).orElse("");
    }

    /** The operator's view of the job: {@code status.jobStatus.state} of the FlinkDeployment. */
    String jobState() {
        return get(FD, "-o", "jsonpath={.status.jobStatus.state}").orElse("UNKNOWN");
    }

    String jobId() {
        return fd("{.status.jobStatus.jobId}");
    }

    String pod(String selector) {
        String name = get("pod", "-l", selector, "-o", "jsonpath={.items[0].metadata.name}")
                .orElse("");
        if (name.isEmpty()) {
            throw new IllegalStateException("no pod " + selector + " in " + namespace);
        }
        return name;
    }

    String podUid(String selector) {
        return get("pod", "-l", selector, "-o", "jsonpath={.items[*].metadata.uid}")
                .orElse("");
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

    /** What {@code kubectl apply} changed, on one line. */
    static String changed(String applyOutput) {
        return applyOutput
                .lines()
                .filter(l -> !l.endsWith(" unchanged"))
                .reduce((a, b) -> a + "; " + b)
                .orElse("nothing changed");
    }
}
