package io.lineflow.drill.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The e2e stand-in for the Prometheus Operator: turns the PodMonitors and PrometheusRules deployed
 * in the cluster into what Debian's Prometheus can read, file-based discovery targets and rule
 * files, so that Prometheus scrapes exactly what the shipped PodMonitors select and evaluates
 * exactly the shipped rules. Nothing is configured twice: change a PodMonitor's selector, port or
 * path and the scrape follows.
 *
 * <p>What it translates, as the Prometheus Operator does (its {@code PodMonitor} reference):
 * {@code spec.selector.matchLabels} (a {@code matchExpressions} selector is refused, not guessed),
 * {@code spec.namespaceSelector} ({@code any}, {@code matchNames}, else the PodMonitor's own
 * namespace), and per {@code podMetricsEndpoints} entry the named container {@code port}, {@code
 * path}, {@code interval}, {@code scrapeTimeout} and {@code honorLabels}. Each target carries the
 * operator's labels: {@code namespace}, {@code pod}, {@code container}, {@code endpoint} and {@code
 * job} ({@code <namespace>/<PodMonitor name>}). Only running pods with an IP are targets.
 */
public final class ScrapeDiscovery {
    /** The sub-folder of the discovery folder that holds one rule file per PrometheusRule. */
    public static final String RULES = "rules";

    static final String TARGETS = "podmonitors.json";
    static final String TARGETS_HONORING_LABELS = "podmonitors-honor-labels.json";

    /** One file-based discovery entry: where to scrape and the target's labels. */
    record Target(String address, Map<String, String> labels, boolean honorLabels) {}

    private final KubernetesClient client;
    private final Path dir;
    private final URI prometheus;
    private final Consumer<String> log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    public ScrapeDiscovery(KubernetesClient client, Path dir, URI prometheus, Consumer<String> log) {
        this.client = client;
        this.dir = dir;
        this.prometheus = prometheus;
        this.log = log;
    }

    /** Reading the cluster of the kubeconfig in the environment (KUBECONFIG), as kubectl does. */
    public static ScrapeDiscovery ofKubeconfig(Path dir, URI prometheus, Consumer<String> log) {
        return new ScrapeDiscovery(
                new KubernetesClientBuilder()
                        .withConfig(ApiServer.asKubectl(Config.autoConfigure(null)))
                        .build(),
                dir,
                prometheus,
                log);
    }

    /** Prometheus' configuration: the two discovery files, the rule files, the Alertmanager. */
    public static String prometheusConfig(Path dir, URI alertmanager) {
        return String.join(
                "\n",
                "# Written by the e2e services (PrometheusServers); targets and rules come from the",
                "# cluster's PodMonitors and PrometheusRules through ScrapeDiscovery.",
                "global:",
                "  scrape_interval: 30s",
                "  scrape_timeout: 10s",
                "  evaluation_interval: 15s",
                "rule_files:",
                "  - " + dir.resolve(RULES) + "/*.yml",
                "alerting:",
                "  alertmanagers:",
                "    - static_configs:",
                "        - targets: [\"" + alertmanager.getAuthority() + "\"]",
                "scrape_configs:",
                "  - job_name: podmonitors",
                "    file_sd_configs:",
                "      - files: [\"" + dir.resolve(TARGETS) + "\"]",
                "        refresh_interval: 5s",
                "  - job_name: podmonitors-honor-labels",
                "    honor_labels: true",
                "    file_sd_configs:",
                "      - files: [\"" + dir.resolve(TARGETS_HONORING_LABELS) + "\"]",
                "        refresh_interval: 5s",
                "");
    }

    /** Reads the cluster every {@code period} in a daemon thread; what changed and failures are logged. */
    public Thread startEvery(Duration period) {
        Thread t = new Thread(
                () -> {
                    String last = "";
                    while (!Thread.currentThread().isInterrupted()) {
                        String state;
                        try {
                            state = sync();
                        } catch (RuntimeException e) {
                            // e.g. before the PodMonitor CRD is applied
                            state = "failed, kept the last files: " + e.getMessage();
                        }
                        if (!state.equals(last)) {
                            log.accept("scrape discovery: " + state);
                            last = state;
                        }
                        try {
                            Thread.sleep(period.toMillis());
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "scrape-discovery");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** One pass: targets and rule files rewritten when they changed; returns what it found. */
    String sync() {
        List<GenericKubernetesResource> monitors = client.genericKubernetesResources(
                        "monitoring.coreos.com/v1", "PodMonitor")
                .inAnyNamespace()
                .list()
                .getItems();
        List<Target> targets =
                targets(monitors, client.pods().inAnyNamespace().list().getItems());
        write(TARGETS, fileSd(targets.stream().filter(t -> !t.honorLabels())));
        write(TARGETS_HONORING_LABELS, fileSd(targets.stream().filter(Target::honorLabels)));
        Map<String, String> rules = new TreeMap<>();
        for (GenericKubernetesResource r : client.genericKubernetesResources(
                        "monitoring.coreos.com/v1", "PrometheusRule")
                .inAnyNamespace()
                .list()
                .getItems()) {
            rules.put(r.getMetadata().getNamespace() + "--" + r.getMetadata().getName() + ".yml", ruleFile(r));
        }
        if (writeRules(rules)) {
            reload();
        }
        return targets.size() + " targets of " + monitors.size() + " PodMonitors ("
                + targets.stream().map(t -> t.labels().get("pod")).sorted().collect(Collectors.joining(", "))
                + "), rules " + rules.keySet();
    }

    /** The scrape targets {@code monitors} select among {@code pods}. */
    static List<Target> targets(List<GenericKubernetesResource> monitors, List<Pod> pods) {
        List<Target> out = new ArrayList<>();
        for (GenericKubernetesResource m : monitors) {
            String ns = m.getMetadata().getNamespace();
            String job = ns + "/" + m.getMetadata().getName();
            Map<String, Object> spec = map(m.getAdditionalProperties().get("spec"), job + " spec");
            Map<String, Object> selector = map(spec.get("selector"), job + " spec.selector");
            if (selector.containsKey("matchExpressions")) {
                throw new IllegalArgumentException(job
                        + ": spec.selector.matchExpressions is not translated by the e2e stand-in; use matchLabels");
            }
            Map<String, Object> matchLabels = map(selector.getOrDefault("matchLabels", Map.of()), job + " matchLabels");
            Set<String> namespaces = namespaces(spec, ns);
            for (Pod pod : pods) {
                if (!selected(pod, namespaces, matchLabels)) {
                    continue;
                }
                for (Object e : list(spec.get("podMetricsEndpoints"), job + " spec.podMetricsEndpoints")) {
                    Map<String, Object> endpoint = map(e, job + " podMetricsEndpoints entry");
                    String portName = String.valueOf(endpoint.get("port"));
                    for (Container c : pod.getSpec().getContainers()) {
                        for (ContainerPort p : c.getPorts()) {
                            if (portName.equals(p.getName())) {
                                Map<String, String> labels = new LinkedHashMap<>();
                                labels.put("job", job);
                                labels.put("namespace", pod.getMetadata().getNamespace());
                                labels.put("pod", pod.getMetadata().getName());
                                labels.put("container", c.getName());
                                labels.put("endpoint", portName);
                                labels.put(
                                        "__metrics_path__", String.valueOf(endpoint.getOrDefault("path", "/metrics")));
                                if (endpoint.containsKey("interval")) {
                                    labels.put("__scrape_interval__", String.valueOf(endpoint.get("interval")));
                                }
                                if (endpoint.containsKey("scrapeTimeout")) {
                                    labels.put("__scrape_timeout__", String.valueOf(endpoint.get("scrapeTimeout")));
                                }
                                out.add(new Target(
                                        pod.getStatus().getPodIP() + ":" + p.getContainerPort(),
                                        labels,
                                        Boolean.TRUE.equals(endpoint.get("honorLabels"))));
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static Set<String> namespaces(Map<String, Object> spec, String own) {
        Map<String, Object> ns = map(spec.getOrDefault("namespaceSelector", Map.of()), "namespaceSelector");
        if (Boolean.TRUE.equals(ns.get("any"))) {
            return null;
        }
        if (ns.containsKey("matchNames")) {
            return list(ns.get("matchNames"), "namespaceSelector.matchNames").stream()
                    .map(String::valueOf)
                    .collect(Collectors.toSet());
        }
        return Set.of(own);
    }

    private static boolean selected(Pod pod, Set<String> namespaces, Map<String, Object> matchLabels) {
        if (namespaces != null && !namespaces.contains(pod.getMetadata().getNamespace())) {
            return false;
        }
        if (pod.getStatus() == null
                || !"Running".equals(pod.getStatus().getPhase())
                || pod.getStatus().getPodIP() == null
                || pod.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        Map<String, String> labels =
                Objects.requireNonNullElse(pod.getMetadata().getLabels(), Map.of());
        return matchLabels.entrySet().stream()
                .allMatch(l -> String.valueOf(l.getValue()).equals(labels.get(l.getKey())));
    }

    /** File-based discovery's JSON: one group per target. */
    static String fileSd(Stream<Target> targets) {
        return Serialization.asJson(targets.map(t -> Map.of("targets", List.of(t.address()), "labels", t.labels()))
                .toList());
    }

    /** A PrometheusRule's groups as a Prometheus rule file. */
    static String ruleFile(GenericKubernetesResource rule) {
        Map<String, Object> spec = map(
                rule.getAdditionalProperties().get("spec"), rule.getMetadata().getName() + " spec");
        Map<String, Object> file = new HashMap<>();
        file.put("groups", spec.getOrDefault("groups", List.of()));
        return Serialization.asYaml(file);
    }

    private void write(String name, String content) {
        Path file = dir.resolve(name);
        try {
            if (Files.exists(file) && Files.readString(file).equals(content)) {
                return;
            }
            // Prometheus rereads the file on change: it must never see half of it.
            Path next = dir.resolve(name + ".next");
            Files.writeString(next, content);
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when a rule file was written or removed. */
    private boolean writeRules(Map<String, String> rules) {
        Path rulesDir = dir.resolve(RULES);
        boolean changed = false;
        try (Stream<Path> existing = Files.list(rulesDir)) {
            for (Path p : existing.toList()) {
                if (!rules.containsKey(p.getFileName().toString())) {
                    Files.delete(p);
                    changed = true;
                }
            }
            for (Map.Entry<String, String> r : rules.entrySet()) {
                Path file = rulesDir.resolve(r.getKey());
                if (!Files.exists(file) || !Files.readString(file).equals(r.getValue())) {
                    Path next = dir.resolve(r.getKey() + ".next");
                    Files.writeString(next, r.getValue());
                    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    changed = true;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return changed;
    }

    private void reload() {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(prometheus.resolve("/-/reload"))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(
                        "Prometheus refused the new rules (HTTP " + r.statusCode() + "): " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reloading Prometheus at " + prometheus, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reloading Prometheus", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String what) {
        if (o instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new IllegalArgumentException(what + ": expected an object, found " + o);
    }

    private static List<?> list(Object o, String what) {
        if (o instanceof List<?> l) {
            return l;
        }
        throw new IllegalArgumentException(what + ": expected a list, found " + o);
    }
}
