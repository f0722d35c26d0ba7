package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.DrillReport;
import io.lineflow.drill.core.Pause;

import io.fabric8.kubernetes.api.model.Pod;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the in-cluster reconciler exports for the deployment, read from its scrape endpoint as
 * Prometheus would. Above all the incident lineflow exists for, watched ({@link #watch}): after a
 * JobManager failover, every new message read twice while the UI looks healthy.
 */
final class ReconcilerMetrics {
    /** The reconciler's pods, and the port its Service names {@code http}. */
    static final Map<String, String> RECONCILER = Map.of("app.kubernetes.io/name", "lineflow-reconciler");

    private static final int METRICS_PORT = 8080;
    private static final String RATIO = "lineflow_reconciler_duplicate_ratio";
    private static final Pattern FINDING =
            Pattern.compile("(?m)^lineflow_reconciler_finding\\{(?=[^}]*\\bname=\"lineflow\")"
                    + "(?=[^}]*\\bcode=\"DUPLICATE_CONSUMPTION\")[^}]*\\} 1");
    /** Passes that measured a ratio, at the least, before the watch counts as having looked. */
    private static final int MIN_MEASURED = 3;

    /**
     * What the watch saw.
     *
     * @param scrapes answered scrapes
     * @param ratios the duplicate ratio of each scrape that had one
     * @param findings scrapes that reported DUPLICATE_CONSUMPTION
     */
    record Seen(int scrapes, List<Double> ratios, int findings) {
        /** What is wrong with it, or empty: a finding, or too few ratios to have looked at all. */
        Optional<String> problem() {
            if (findings > 0) {
                return Optional.of("DUPLICATES the reconciler reported DUPLICATE_CONSUMPTION in " + findings + " of "
                        + scrapes + " scrapes after the failover (ratios " + ratios + ")");
            }
            if (ratios.size() < MIN_MEASURED) {
                return Optional.of("DUPLICATES the reconciler measured the duplicate ratio in only " + ratios.size()
                        + " of " + scrapes + " scrapes; at least " + MIN_MEASURED + " are needed to say none");
            }
            return Optional.empty();
        }

        double max() {
            return ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }
    }

    /**
     * The latest completed continuous audit of the deployment {@code lineflow} (docs/reconciler.md):
     * when it completed and how long it took (seconds), and its rows by result.
     */
    record Audit(
            double completedAt,
            double took,
            double matched,
            double missing,
            double extra,
            double wrong,
            double unjudged) {
        /** When it began, epoch seconds. */
        double began() {
            return completedAt - took;
        }

        double mismatched() {
            return missing + extra + wrong;
        }

        @Override
        public String toString() {
            return String.format(
                    "%.0f rows matched, %.0f missing, %.0f extra, %.0f wrong, %.0f not judged",
                    matched, missing, extra, wrong, unjudged);
        }
    }

    private final ClusterPods pods;
    private final Function<String, URI> scrapeAt;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    ReconcilerMetrics(ClusterPods pods) {
        this(pods, ip -> URI.create("http://" + ip + ":" + METRICS_PORT));
    }

    /**
     * With {@code scrapeAt} giving the base address of the reconciler at a pod IP: tests answer on
     * loopback what the pod would on its IP.
     */
    ReconcilerMetrics(ClusterPods pods, Function<String, URI> scrapeAt) {
        this.pods = pods;
        this.scrapeAt = scrapeAt;
    }

    /**
     * Scrapes the reconciler every {@code every} until {@code untilMillis}, for as long as the
     * drill produces: each pass's duplicate ratio (the sources' records per second over the
     * topic's) and any DUPLICATE_CONSUMPTION finding. A watch in which the reconciler never
     * measured a ratio proves nothing, and {@link Seen#problem} says so.
     */
    Seen watch(long untilMillis, Duration every, Consumer<String> log) {
        long began = System.currentTimeMillis();
        int scrapes = 0;
        int findings = 0;
        List<Double> ratios = new ArrayList<>();
        while (System.currentTimeMillis() < untilMillis) {
            Optional<String> text = scrape();
            if (text.isPresent()) {
                scrapes++;
                duplicateRatio(text.get()).ifPresent(ratios::add);
                if (reportsDuplicateConsumption(text.get())) {
                    findings++;
                }
            }
            Pause.sleep(Math.min(every.toMillis(), Math.max(0, untilMillis - System.currentTimeMillis())));
        }
        Seen seen = new Seen(scrapes, ratios, findings);
        log.accept("  the reconciler over " + DrillReport.seconds(System.currentTimeMillis() - began) + ": " + scrapes
                + " scrapes, duplicate ratio " + ratios + ", DUPLICATE_CONSUMPTION in " + findings);
        return seen;
    }

    /** The latest completed audit; empty before the first or while the reconciler does not answer. */
    Optional<Audit> audit() {
        return scrape().flatMap(ReconcilerMetrics::audit);
    }

    static Optional<Audit> audit(String text) {
        Optional<Double> at = auditGauge(text, "lineflow_audit_last_completed_timestamp_seconds", "");
        Optional<Double> took = auditGauge(text, "lineflow_audit_last_duration_seconds", "");
        if (at.isEmpty() || took.isEmpty() || !(at.get() > 0)) {
            return Optional.empty();
        }
        double[] rows = new double[5];
        String[] results = {"matched", "missing", "extra", "wrong", "unjudged"};
        for (int i = 0; i < results.length; i++) {
            Optional<Double> v = auditGauge(text, "lineflow_audit_rows", ",result=\"" + results[i] + "\"");
            if (v.isEmpty()) {
                return Optional.empty();
            }
            rows[i] = v.get();
        }
        return Optional.of(new Audit(at.get(), took.get(), rows[0], rows[1], rows[2], rows[3], rows[4]));
    }

    private static Optional<Double> auditGauge(String text, String metric, String more) {
        // Labels: the deployment's namespace (when the reconciler watches several, names may repeat),
        // its name, then the rest.
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "\\{(?:[^}]*,)?deployment=\"lineflow\""
                        + Pattern.quote(more) + "\\} (\\S+)$")
                .matcher(text);
        return m.find() ? Optional.of(Double.parseDouble(m.group(1))) : Optional.empty();
    }

    /** A gauge the reconciler exports for the deployment {@code lineflow}; empty while it has none. */
    Optional<Double> gauge(String metric) {
        return scrape().flatMap(text -> gauge(text, metric, FlinkCluster.NAME));
    }

    /** The duplicate ratio the reconciler exports for {@code deployment}; empty while it has none. */
    Optional<Double> duplicateRatioOf(String deployment) {
        return scrape().flatMap(text -> gauge(text, RATIO, deployment));
    }

    /** {@code metric} for {@code deployment} in the exposition {@code text}; empty when absent. */
    private static Optional<Double> gauge(String text, String metric, String deployment) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "\\{[^}]*name=\"" + Pattern.quote(deployment)
                        + "\"[^}]*\\} (\\S+)$")
                .matcher(text);
        return m.find() ? Optional.of(Double.parseDouble(m.group(1))) : Optional.empty();
    }

    /** The duplicate ratio for the deployment {@code lineflow} in the exposition {@code text}; empty when absent. */
    static Optional<Double> duplicateRatio(String text) {
        return gauge(text, RATIO, FlinkCluster.NAME);
    }

    /** Whether the exposition {@code text} reports a DUPLICATE_CONSUMPTION finding. */
    static boolean reportsDuplicateConsumption(String text) {
        return FINDING.matcher(text).find();
    }

    /** The reconciler's exposition, from its running pod's address; empty when it does not answer. */
    private Optional<String> scrape() {
        Optional<String> ip = pods.withLabels(RECONCILER).orElse(List.of()).stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .map(Pod::getStatus)
                .filter(s -> s != null && s.getPodIP() != null)
                .map(s -> s.getPodIP())
                .findFirst();
        if (ip.isEmpty()) {
            return Optional.empty();
        }
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(scrapeAt.apply(ip.get()).resolve("/metrics"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(r.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
