package io.lineflow.drill;

import io.lineflow.drill.core.Await;
import io.lineflow.drill.kubernetes.ScrapeDiscovery;
import io.lineflow.testing.ManagedProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Debian's Prometheus (2.42) and Alertmanager (0.25) beside the e2e node, as a production team
 * runs them: Prometheus scrapes the pods the deployed PodMonitors select and evaluates the
 * deployed PrometheusRules, and sends what fires to the Alertmanager. Both listen on loopback
 * only; Prometheus reaches the pods over the node's bridge.
 *
 * <p>The Prometheus Operator, which would turn PodMonitors and PrometheusRules into Prometheus'
 * configuration, is in no package this machine can reach, and Debian's Prometheus is built
 * without Kubernetes service discovery: {@link ScrapeDiscovery} is the stand-in, writing file-based
 * discovery targets and rule files from the API server's objects; this class only points
 * Prometheus at those files.
 */
public final class PrometheusServers implements AutoCloseable {
    private static final Duration START_LIMIT = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(200);

    private final Path dir;
    private final int prometheusPort;
    private final int alertmanagerPort;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ManagedProcess prometheus;
    private ManagedProcess alertmanager;

    public PrometheusServers(Path dir, int prometheusPort, int alertmanagerPort) {
        this.dir = dir;
        this.prometheusPort = prometheusPort;
        this.alertmanagerPort = alertmanagerPort;
    }

    public URI prometheus() {
        return URI.create("http://127.0.0.1:" + prometheusPort);
    }

    public URI alertmanager() {
        return URI.create("http://127.0.0.1:" + alertmanagerPort);
    }

    /** Where {@link ScrapeDiscovery} writes the targets and rules this Prometheus reads. */
    public Path discoveryDir() {
        return dir.resolve("discovery");
    }

    /** Starts the Alertmanager, then Prometheus; returns once both say they are ready. */
    public void start() throws IOException {
        Files.createDirectories(discoveryDir().resolve(ScrapeDiscovery.RULES));
        Files.writeString(
                dir.resolve("alertmanager.yml"),
                String.join(
                        "\n",
                        "# Written by the e2e services (PrometheusServers): every alert is kept for the",
                        "# drill to read from the API; nothing is sent anywhere.",
                        "route:",
                        "  receiver: drill",
                        "  group_wait: 0s",
                        "  group_interval: 10s",
                        "receivers:",
                        "  - name: drill",
                        ""));
        alertmanager = ManagedProcess.start(
                "alertmanager",
                new ProcessBuilder(
                        "prometheus-alertmanager",
                        "--config.file=" + dir.resolve("alertmanager.yml"),
                        "--storage.path=" + dir.resolve("alertmanager-data"),
                        "--web.listen-address=127.0.0.1:" + alertmanagerPort,
                        // One Alertmanager, no gossip port opened.
                        "--cluster.listen-address="),
                dir.resolve("alertmanager.log"));
        awaitReady(alertmanager, alertmanager());
        Files.writeString(
                dir.resolve("prometheus.yml"), ScrapeDiscovery.prometheusConfig(discoveryDir(), alertmanager()));
        prometheus = ManagedProcess.start(
                "prometheus",
                new ProcessBuilder(
                        "prometheus",
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("prometheus-data"),
                        "--web.listen-address=127.0.0.1:" + prometheusPort,
                        // ScrapeDiscovery reloads it when the deployed rules change.
                        "--web.enable-lifecycle"),
                dir.resolve("prometheus.log"));
        awaitReady(prometheus, prometheus());
    }

    private void awaitReady(ManagedProcess process, URI base) {
        Await.orFail(START_LIMIT, POLL, process + " ready on " + base + " (log: " + process.log + ")", () -> {
            if (!process.alive()) {
                throw new IllegalStateException(process + " exited; log: " + process.log);
            }
            return ready(base);
        });
    }

    private boolean ready(URI base) {
        try {
            return http.send(
                                    HttpRequest.newBuilder(base.resolve("/-/ready"))
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        for (ManagedProcess p : new ManagedProcess[] {prometheus, alertmanager}) {
            if (p != null && p.alive()) {
                p.stop();
            }
        }
    }
}
