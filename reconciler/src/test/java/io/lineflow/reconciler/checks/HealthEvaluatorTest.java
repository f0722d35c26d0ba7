package io.lineflow.reconciler.checks;

import static io.lineflow.reconciler.TestUtils.CLOCK;
import static io.lineflow.reconciler.TestUtils.NOW;
import static io.lineflow.reconciler.TestUtils.goodSpec;
import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.model.AuditReport;
import io.lineflow.reconciler.model.AuditStatus;
import io.lineflow.reconciler.model.FindingCode;
import io.lineflow.reconciler.model.HealthResult;
import io.lineflow.reconciler.model.Observation;
import io.lineflow.reconciler.model.Severity;
import io.lineflow.rules.table.WindowTable.Difference;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** What the evaluator runs: every check of this package, and the audit's verdict as one of them. */
class HealthEvaluatorTest {

    private final Configuration conf = ReconcilerOptions.fromMap(Map.of());

    /**
     * A {@link Check} that the evaluator does not list never runs, and nothing else would notice:
     * every concrete class of this package that implements it must be listed.
     */
    @Test
    void everyCheckOfThePackageIsListed() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(Check.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .resolve(Check.class.getPackageName().replace('.', '/'));
        List<Class<?>> checks;
        try (Stream<Path> files = Files.list(dir)) {
            checks = files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".class") && !n.contains("$"))
                    .map(n -> Check.class.getPackageName() + "." + n.substring(0, n.length() - ".class".length()))
                    .map(HealthEvaluatorTest::load)
                    .filter(c -> Check.class.isAssignableFrom(c)
                            && !c.isInterface()
                            && !Modifier.isAbstract(c.getModifiers()))
                    .toList();
        }
        assertThat(checks).as("the checks found in %s", dir).hasSizeGreaterThanOrEqualTo(8);
        assertThat(HealthEvaluator.checks().stream().map(Object::getClass).toList())
                .containsExactlyInAnyOrderElementsOf(checks);
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aCleanAuditIsNoFindingAndAMismatchIsCriticalWithItsRows() {
        assertThat(new AuditCheck()
                        .evaluate(withAudit(report(List.of())), conf, CLOCK)
                        .findings())
                .isEmpty();
        HealthResult r = new AuditCheck()
                .evaluate(
                        withAudit(report(List.of(new Difference(
                                Difference.Kind.WRONG, "d2@2026-11-01T11:30:00Z", "events_seen", 3, 99)))),
                        conf,
                        CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.AUDIT_MISMATCH);
        assertThat(r.findings().get(0).message()).contains("d2@2026-11-01T11:30:00Z", "1 wrong");
        assertThat(r.findings().get(0).evidence()).containsEntry("wrong", 1L).containsEntry("matched", 8L);
    }

    @Test
    void aDeploymentTheAuditCannotJudgeIsAWarningSayingWhy() {
        String why = "its job's settings are not valid: lineflow.window.size = 'soon' is invalid; expected a duration";
        HealthResult r = new AuditCheck()
                .evaluate(
                        new Observation(NOW, goodSpec(), null, null, null, List.of(), AuditStatus.notAudited(why)),
                        conf,
                        CLOCK);
        assertThat(r.codes()).containsExactly(FindingCode.AUDIT_NOT_RUN);
        assertThat(r.worst()).contains(Severity.WARNING);
        assertThat(r.findings().get(0).message()).contains(why);
    }

    @Test
    void theEvaluatorJudgesAnAuditEvenWithNothingElseObserved() {
        Observation o = withAudit(report(List.of(new Difference(Difference.Kind.MISSING, "d1@x", null, null, null))));
        assertThat(new HealthEvaluator(conf, CLOCK).evaluate(o).codes()).contains(FindingCode.AUDIT_MISMATCH);
        assertThat(new HealthEvaluator(conf, CLOCK).evaluate(o.withAudit(null)).codes())
                .doesNotContain(FindingCode.AUDIT_MISMATCH);
    }

    private static Observation withAudit(AuditReport r) {
        return new Observation(NOW, goodSpec(), null, null, null, List.of(), AuditStatus.completed(r));
    }

    private static AuditReport report(List<Difference> differences) {
        return new AuditReport(
                NOW,
                NOW.minus(Duration.ofMinutes(30)).toEpochMilli(),
                NOW.toEpochMilli(),
                100,
                90,
                0,
                0,
                0,
                "0:0-100",
                8,
                differences,
                Map.of(),
                0,
                Duration.ofSeconds(1));
    }
}
