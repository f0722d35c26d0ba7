package io.lineflow.drill.local;

import io.lineflow.testing.Commands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real kube-apiserver (and etcd) on loopback for the Kubernetes-HA drill, through the project's
 * {@code scripts/k8s-test-env.sh} (which builds it once and caches it). It hands out a namespace
 * holding the Flink ServiceAccount and RBAC from {@code manifests/rbac}, and a kubeconfig that
 * authenticates as that ServiceAccount: Flink's HA then works under exactly the permissions a
 * deployment grants it.
 */
final class KubernetesApiServer implements AutoCloseable {
    private final Path repo;
    private final Path state;

    private KubernetesApiServer(Path repo, Path state) {
        this.repo = repo;
        this.state = state;
    }

    static KubernetesApiServer start(Path repo, Path state) {
        KubernetesApiServer k = new KubernetesApiServer(repo, state);
        k.run(List.of("bash", "scripts/tools.sh"));
        k.run(List.of("bash", "scripts/k8s-test-env.sh", "build"));
        // Stopped also when the drill is interrupted: the script stops only what it started here.
        Runtime.getRuntime().addShutdownHook(new Thread(k::stopQuietly, "drill-k8s-cleanup"));
        k.run(List.of("bash", "scripts/k8s-test-env.sh", "start", state.toString()));
        return k;
    }

    private void stopQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            // already stopped
        }
    }

    /**
     * Creates {@code namespace} with the Flink ServiceAccount and its Role, and returns a
     * kubeconfig file for that ServiceAccount.
     */
    Path namespaceForFlink(String namespace) {
        kubectl("create", "namespace", namespace);
        kubectl("apply", "-n", namespace, "-k", repo.resolve("manifests/rbac").toString());
        String token = kubectl("-n", namespace, "create", "token", "lineflow-flink", "--duration", "2h")
                .trim();
        String server = kubectl("config", "view", "--raw", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}");
        String ca = kubectl(
                "config", "view", "--raw", "--minify", "-o", "jsonpath={.clusters[0].cluster.certificate-authority}");
        Path file = state.resolve("flink-" + namespace + ".kubeconfig");
        try {
            Files.writeString(
                    file,
                    String.join(
                            "\n",
                            "apiVersion: v1",
                            "kind: Config",
                            "clusters:",
                            "- name: drill",
                            "  cluster: {server: \"" + server + "\", certificate-authority: \"" + ca + "\"}",
                            "users:",
                            "- name: lineflow-flink",
                            "  user: {token: \"" + token + "\"}",
                            "contexts:",
                            "- name: flink",
                            "  context: {cluster: drill, user: lineflow-flink, namespace: " + namespace + "}",
                            "current-context: flink",
                            ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Names of the ConfigMaps in {@code namespace}: where Flink keeps leadership and job metadata. */
    String configMaps(String namespace) {
        return kubectl("-n", namespace, "get", "configmaps", "-o", "name");
    }

    private String kubectl(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                repo.resolve("bin/kubectl").toString(),
                "--kubeconfig",
                state.resolve("kubeconfig").toString()));
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    /** A long limit: the first start builds kube-apiserver (about 25 minutes on 2 cores). */
    private String run(List<String> cmd) {
        return Commands.run(repo, Duration.ofHours(2), cmd);
    }

    @Override
    public void close() {
        run(List.of("bash", "scripts/k8s-test-env.sh", "stop", state.toString()));
    }
}
