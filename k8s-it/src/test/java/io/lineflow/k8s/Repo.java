package io.lineflow.k8s;

import io.lineflow.testing.Commands;
import io.lineflow.testing.OperatorCrds;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Paths of the repository under test and a runner for its scripts and pinned tools. */
final class Repo {
    static final Path ROOT = Path.of(System.getProperty("lineflow.repo.root", ".."))
            .toAbsolutePath()
            .normalize();
    static final Path KUBECTL = ROOT.resolve("bin/kubectl");
    static final Path ENV_SCRIPT = ROOT.resolve("scripts/k8s-test-env.sh");
    static final Path TARGET = ROOT.resolve("k8s-it/target");
    /** Where scripts/operator-crds.sh put the operator's CRDs, one folder per release. */
    static final Path OPERATOR_CRDS = Path.of(System.getProperty(
                    "lineflow.operator.crds", TARGET.resolve("operator-crds").toString()))
            .toAbsolutePath()
            .normalize();

    private Repo() {}

    /**
     * Runs {@code command} from the repository root, feeding it {@code stdin} (may be null). The
     * first start may build kube-apiserver (about 7-10 minutes on 2 cores).
     */
    static Commands.Result exec(String stdin, List<String> command) {
        return Commands.exec(ROOT, Map.of(), stdin, Duration.ofMinutes(20), command);
    }

    /** Runs a command and returns its stdout; fails the test with stderr on exit != 0. */
    static String run(String... command) {
        return exec(null, List.of(command)).orFail().out();
    }

    /**
     * The CRD files of the operator release operator-config/chart.env names, as
     * scripts/operator-crds.sh extracted them (this module's pom runs it); fails naming the
     * FlinkDeployment CRD and how to get it when that is missing.
     */
    static List<Path> operatorCrds() throws IOException {
        Matcher m = Pattern.compile("(?m)^OPERATOR_CHART_VERSION=(\\S+)$")
                .matcher(Files.readString(ROOT.resolve("operator-config/chart.env")));
        if (!m.find()) {
            throw new IllegalStateException("operator-config/chart.env names no OPERATOR_CHART_VERSION");
        }
        String version = m.group(1);
        Path dir = OperatorCrds.of(OPERATOR_CRDS, version);
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".yml"))
                    .sorted()
                    .toList();
        }
    }

    /** The pinned kustomize (kubectl's) rendering of a folder of the repository. */
    static String kustomize(Path dir) {
        return run(KUBECTL.toString(), "kustomize", dir.toString());
    }
}
