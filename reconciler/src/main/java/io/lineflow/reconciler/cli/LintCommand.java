package io.lineflow.reconciler.cli;

import io.lineflow.reconciler.act.Reports;
import io.lineflow.reconciler.checks.SpecChecks;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.reconciler.model.SpecObservation;
import io.lineflow.reconciler.observe.SpecReader;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** `lint`: the spec checks on rendered manifests, the GitOps gate. Exit code by worst severity. */
public final class LintCommand {

    static final String USAGE = "lint [--output table|json] [--fail-on warning|critical] FILE... (or - for stdin)";

    private LintCommand() {}

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) throws IOException {
        Args a = Args.parse(argv, Set.of("output", "fail-on"), Set.of());
        if (a.positionals.isEmpty()) {
            throw new Args.UsageException("lint needs at least one file, or - for stdin");
        }
        Severity failOn = Severity.valueOf(a.get("fail-on", "warning").toUpperCase(java.util.Locale.ROOT));
        List<Map.Entry<String, HealthResult>> results = new ArrayList<>();
        for (String file : a.positionals) {
            List<FlinkDeployment> fds;
            if (file.equals("-")) {
                fds = ManifestReader.read(stdin);
            } else {
                try (InputStream in = new FileInputStream(file)) {
                    fds = ManifestReader.read(in);
                }
            }
            if (fds.isEmpty()) {
                err.println("lint: no FlinkDeployment in " + file);
            }
            for (FlinkDeployment fd : fds) {
                SpecObservation spec = SpecReader.spec(fd);
                results.add(Map.entry(file + ":" + spec.key(), SpecChecks.evaluate(spec)));
            }
        }
        if ("json".equals(a.get("output", "table"))) {
            ArrayNode arr = Reports.JSON.createArrayNode();
            for (Map.Entry<String, HealthResult> e : results) {
                arr.add(Reports.toJson(null, e.getKey(), e.getValue(), null));
            }
            out.println(Reports.write(arr));
        } else {
            out.print(Reports.table(results));
        }
        Severity worst = results.stream()
                .map(e -> e.getValue().worst().orElse(null))
                .filter(java.util.Objects::nonNull)
                .reduce(Severity.INFO, Severity::max);
        boolean any = results.stream().anyMatch(e -> e.getValue().worst().isPresent());
        return any && worst.compareTo(failOn) >= 0 ? worst.exitCode() : 0;
    }
}
