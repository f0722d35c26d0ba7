package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The operator's version is named in {@code operator-config/chart.env} alone
 * ({@code OPERATOR_CHART_VERSION}); every other place that names the operator release lineflow
 * installs - Helm values, the Makefile, scripts, image recipes, manifests, docs - names that one,
 * or {@code OPERATOR_UPGRADE_FROM}, the release an upgrade starts from. A bump of chart.env that
 * leaves a doc, a value or a script behind fails here with the file and line.
 */
class OperatorVersionTest {
    static final Path CHART_ENV = Repo.ROOT.resolve("operator-config/chart.env");

    /** Where the installed release is named (Java sources state facts about versions, not this one). */
    static final List<String> SCANNED =
            List.of("docs", "scripts", "operator-config", "images", "kustomize", "manifests", ".ci");

    static final List<String> SCANNED_FILES = List.of("Makefile", "README.md");

    /**
     * How a text names an operator release: an artefact of it (image, jar, source release, chart
     * repository), its docs site, "Operator X.Y.Z" or "chart X.Y.Z", an OPERATOR_*=X.Y.Z setting
     * and the Helm values' image tag. The API jar ({@code flink-kubernetes-operator-api}) is the
     * pom's own version and not matched.
     */
    static final List<Pattern> MENTIONS = List.of(
            Pattern.compile("flink-kubernetes-operator[-:/](\\d+\\.\\d+\\.\\d+)"),
            Pattern.compile("flink-kubernetes-operator-docs-release-(\\d+\\.\\d+)"),
            Pattern.compile("(?i)\\b(?:operator|chart)\\s+v?(\\d+\\.\\d+\\.\\d+)"),
            Pattern.compile("\\bOPERATOR_[A-Z_]*=\"?(\\d+\\.\\d+\\.\\d+)"),
            Pattern.compile("^\\s*tag:\\s*\"?(\\d+\\.\\d+\\.\\d+)"));

    /** One mention: where, and the version it names. */
    record Mention(String file, int line, String version, String text) {
        @Override
        public String toString() {
            return file + ":" + line + " names " + version + ": " + text.strip();
        }
    }

    static Map<String, String> chartEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(CHART_ENV)) {
                int eq = line.indexOf('=');
                if (!line.startsWith("#") && eq > 0) {
                    env.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return env;
    }

    /** The versions a mention may name: chart.env's, and the upgrade's "from" release if set. */
    static Set<String> allowed() {
        Map<String, String> env = chartEnv();
        Set<String> allowed = new TreeSet<>();
        allowed.add(env.get("OPERATOR_CHART_VERSION"));
        if (env.containsKey("OPERATOR_UPGRADE_FROM")) {
            allowed.add(env.get("OPERATOR_UPGRADE_FROM"));
        }
        return allowed;
    }

    static boolean isAllowed(String version, Set<String> allowed) {
        // The docs site is versioned by minor release (release-1.10): compare what it names.
        return allowed.stream().anyMatch(a -> a.equals(version) || a.startsWith(version + "."));
    }

    static List<Mention> mentions(String file, String text) {
        List<Mention> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            for (Pattern p : MENTIONS) {
                Matcher m = p.matcher(lines[i]);
                while (m.find()) {
                    found.add(new Mention(file, i + 1, m.group(1), lines[i]));
                }
            }
        }
        return found;
    }

    static List<Mention> repoMentions() {
        List<Path> files = new ArrayList<>();
        for (String dir : SCANNED) {
            Path d = Repo.ROOT.resolve(dir);
            if (Files.isDirectory(d)) {
                try (Stream<Path> walk = Files.walk(d)) {
                    walk.filter(Files::isRegularFile)
                            .filter(f -> !f.toString().contains("/target/"))
                            .forEach(files::add);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        SCANNED_FILES.stream()
                .map(Repo.ROOT::resolve)
                .filter(Files::isRegularFile)
                .forEach(files::add);
        List<Mention> found = new ArrayList<>();
        for (Path f : files) {
            String text;
            try {
                text = Files.readString(f);
            } catch (IOException e) {
                continue; // not text
            }
            found.addAll(mentions(Repo.ROOT.relativize(f).toString(), text));
        }
        return found;
    }

    @Test
    void everyMentionOfTheOperatorsReleaseNamesChartEnvs() {
        Set<String> allowed = allowed();
        List<Mention> found = repoMentions();

        assertThat(found.stream().filter(m -> !isAllowed(m.version(), allowed)).toList())
                .as("mentions of an operator release other than %s (operator-config/chart.env)", allowed)
                .isEmpty();
    }

    @Test
    void theScanFindsTheMentionsItIsMeantFor() {
        // Without this a pattern that matches nothing would pass the test above.
        List<Mention> found = repoMentions();
        String version = chartEnv().get("OPERATOR_CHART_VERSION");

        assertThat(found).as("chart.env itself").anyMatch(m -> m.file().equals("operator-config/chart.env"));
        assertThat(found)
                .as("the Helm values' image tag")
                .anyMatch(m -> m.file().equals("operator-config/values.yaml")
                        && m.version().equals(version));
        assertThat(found).as("docs/deploy.md").anyMatch(m -> m.file().equals("docs/deploy.md"));
        assertThat(mentions("x", "by the Flink Kubernetes Operator 1.9.0, and"))
                .extracting(Mention::version)
                .containsExactly("1.9.0");
        assertThat(mentions("x", "image: apache/flink-kubernetes-operator:1.11.0 and chart 1.12.1"))
                .extracting(Mention::version)
                .containsExactly("1.11.0", "1.12.1");
        assertThat(mentions("x", "https://nightlies.apache.org/flink/flink-kubernetes-operator-docs-release-1.13/"))
                .extracting(Mention::version)
                .containsExactly("1.13");
        assertThat(mentions("x", "  tag: \"1.14.0\""))
                .extracting(Mention::version)
                .containsExactly("1.14.0");
        assertThat(mentions("x", "`flink-kubernetes-operator-api` 1.10.0, and Flink 1.20.1"))
                .isEmpty();
    }

    @Test
    void helmValuesPinTheImageToChartEnvsVersion() throws IOException {
        String version = chartEnv().get("OPERATOR_CHART_VERSION");
        try (Stream<Path> values = Files.list(Repo.ROOT.resolve("operator-config"))) {
            for (Path f : values.filter(p -> p.getFileName().toString().matches("values.*\\.yaml"))
                    .toList()) {
                JsonNode tag = Rendered.YAML.readTree(f.toFile()).path("image").path("tag");
                if (!tag.isMissingNode()) {
                    assertThat(tag.asText()).as("image.tag of %s", f).isEqualTo(version);
                }
            }
        }
    }

    @Test
    void theChartRepositoryAndTheMakefileTakeTheVersionFromChartEnv() throws IOException {
        assertThat(chartEnv().get("OPERATOR_CHART_REPO")).contains("$(OPERATOR_CHART_VERSION)");
        String makefile = Files.readString(Repo.ROOT.resolve("Makefile"));
        assertThat(makefile).contains("include operator-config/chart.env");
        // operator-install pins the image to the release it installs, whatever the values say.
        assertThat(makefile).contains("--set image.tag=$(OPERATOR_CHART_VERSION)");
    }

    @Test
    void theOperatorApiIsNoNewerThanTheOperator() throws IOException {
        // The API classes read what the operator writes; an API newer than the operator could
        // expect fields the installed operator never writes. Older is fine (Maven Central here
        // serves no API newer than 1.10.0; see NewerOperatorFieldsTest in the reconciler).
        Matcher m = Pattern.compile("<flink-operator.version>([^<]+)</flink-operator.version>")
                .matcher(Files.readString(Repo.ROOT.resolve("pom.xml")));
        assertThat(m.find()).isTrue();
        assertThat(compare(m.group(1), chartEnv().get("OPERATOR_CHART_VERSION")))
                .isLessThanOrEqualTo(0);
    }

    static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(
                    i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }
}
