package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.Fault;
import io.lineflow.drill.core.ScenarioResult;
import io.lineflow.drill.kubernetes.KubernetesScenario.Control;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The alerts' timeline of a scenario, read from an Alertmanager served on loopback by a watch the
 * test polls by hand on a clock it moves, and what each scenario's alerts must be.
 */
class AlertWatchTest {
    private static final Duration DEADLINE = Duration.ofMinutes(4);
    private static final Duration CLEAR = Duration.ofMinutes(3);
    private static final String RESTARTED = KubernetesScenario.JOB_RESTARTED;
    private static final String MISMATCH = "LineflowAuditMismatch";
    private static final String CHECKPOINTS = "LineflowCheckpointsFailing";

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-03T19:57:29Z"));
    private TestingHttpServer alertmanager;

    @BeforeEach
    void serve() throws IOException {
        alertmanager = new TestingHttpServer();
    }

    @AfterEach
    void stop() {
        alertmanager.close();
    }

    /**
     * The Alertmanager's {@code GET /api/v2/alerts} answer (as 0.25 gives it, see {@link
     * PrometheusApiTest#ALERTS}) with {@code active} active and a silenced Watchdog.
     */
    private void active(String... active) {
        String alerts = Stream.concat(
                        Stream.of(active).map(a -> alert(a, "active", "[]")),
                        Stream.of(alert("Watchdog", "suppressed", "[\"52c1a73b-bdf5-4d2b-bb1d-3c042d6ec4f3\"]")))
                .collect(Collectors.joining(",", "[", "]"));
        alertmanager.on("/api/v2/alerts", alerts);
    }

    private static String alert(String name, String state, String silencedBy) {
        return "{\"annotations\":{},\"endsAt\":\"2026-12-03T20:57:29.000Z\",\"fingerprint\":\"%016x\","
                        .formatted(name.hashCode())
                + "\"receivers\":[{\"name\":\"none\"}],\"startsAt\":\"2026-12-03T19:57:29.000Z\","
                + "\"status\":{\"inhibitedBy\":[],\"silencedBy\":" + silencedBy + ",\"state\":\"" + state + "\"},"
                + "\"updatedAt\":\"2026-12-03T19:57:29.348Z\","
                + "\"labels\":{\"alertname\":\"" + name + "\",\"namespace\":\"lineflow\",\"severity\":\"warning\"}}";
    }

    /** A watch with no thread of its own: it reads when it starts and when the test polls it. */
    private AlertWatch watch() {
        return new AlertWatch(
                new PrometheusApi(alertmanager.uri(), alertmanager.uri()), now::get, Duration.ofMillis(1));
    }

    private void after(Duration d) {
        now.set(now.get().plus(d));
    }

    @Test
    void eachAlertIsTimedFromItsFirstToItsLastReadCountedFromTheStart() throws InterruptedException {
        active(MISMATCH);
        try (AlertWatch watch = watch()) {
            after(Duration.ofSeconds(41));
            active(MISMATCH, RESTARTED);
            watch.poll();
            after(Duration.ofSeconds(51));
            active(RESTARTED);
            watch.poll();
            after(Duration.ofSeconds(28));
            active();
            watch.poll();

            assertThat(watch.timeline())
                    .isEqualTo("LineflowAuditMismatch 0.0 s–41.0 s, LineflowJobRestarted 41.0 s–92.0 s");
            assertThat(watch.atStart()).containsExactly(MISMATCH);
            assertThat(watch.seen()).containsExactlyInAnyOrder(MISMATCH, RESTARTED);
            assertThat(watch.awaitSeen(RESTARTED, Duration.ZERO)).isTrue();
            assertThat(watch.awaitSeen(CHECKPOINTS, Duration.ZERO)).isFalse();
        }
    }

    @Test
    void aFailedReadIsNamedInTheTimelineWhileNothingWasSeen() throws InterruptedException {
        active();
        try (AlertWatch watch = watch()) {
            assertThat(watch.timeline()).isEqualTo("none");

            alertmanager.on("/api/v2/alerts", 503, "upstream connect error");
            watch.poll();
            assertThat(watch.timeline())
                    .startsWith("none (last read failed: GET " + alertmanager.uri() + "/api/v2/alerts?")
                    .endsWith("HTTP 503 upstream connect error)");

            active();
            watch.poll();
            assertThat(watch.timeline()).as("the next read succeeded").isEqualTo("none");
        }
    }

    @Test
    void awaitOnlyGivesWhatIsStillActiveBesidesTheAllowed() throws InterruptedException {
        active();
        try (AlertWatch watch = watch()) {
            active(RESTARTED, CHECKPOINTS);
            assertThat(watch.awaitOnly(Set.of(RESTARTED), Duration.ZERO)).containsExactly(CHECKPOINTS);

            active(RESTARTED);
            assertThat(watch.awaitOnly(Set.of(RESTARTED), Duration.ZERO))
                    .as("the silenced Watchdog is not active")
                    .isEmpty();
        }
    }

    private static List<String> problems(
            KubernetesScenario scenario, Set<String> atStart, Set<String> seen, Set<String> left) {
        return AlertWatch.problems(scenario, atStart, seen, left, DEADLINE, CLEAR);
    }

    @Test
    void theSteadyScenarioMayRaiseNothingButWhatWasActiveBeforeIt() {
        KubernetesScenario steady = KubernetesScenario.STEADY;

        assertThat(problems(steady, Set.of(RESTARTED), Set.of(RESTARTED), Set.of()))
                .as("the scenario before's restart alert, not yet cleared")
                .isEmpty();
        assertThat(problems(steady, Set.of(), Set.of(CHECKPOINTS), Set.of()))
                .containsExactly("ALERT the steady scenario raised [LineflowCheckpointsFailing]");
    }

    @Test
    void anIncidentMustRaiseItsOwnAlertAndNothingElse() {
        KubernetesScenario beam = KubernetesScenario.of(KubernetesScenario.Incident.BEAM_KAFKAIO);
        String duplicates = "LineflowDuplicateConsumption";

        assertThat(problems(beam, Set.of(), Set.of(duplicates), Set.of())).isEmpty();
        assertThat(problems(beam, Set.of(), Set.of(), Set.of()))
                .containsExactly(
                        "ALERT LineflowDuplicateConsumption did not fire (waited 4 min after the scenario's table check)");
        assertThat(problems(beam, Set.of(), Set.of(duplicates, "LineflowUnsafeDeploymentSpec"), Set.of()))
                .containsExactly("ALERT the incident:beam-kafkaio scenario raised [LineflowUnsafeDeploymentSpec]");
        assertThat(problems(beam, Set.of(), Set.of(duplicates), Set.of(duplicates)))
                .as("the finding cleared after the remediation, so must its alert")
                .containsExactly("ALERT still firing 3 min after a healthy scenario: [LineflowDuplicateConsumption]");
    }

    @Test
    void aFaultMustRaiseTheRestartAlertAndLeaveNothingElseFiring() {
        KubernetesScenario tmKill = KubernetesScenario.of(Fault.TM_POD_KILL);

        assertThat(problems(tmKill, Set.of(), Set.of(RESTARTED, CHECKPOINTS), Set.of()))
                .as("another alert that fired and cleared")
                .isEmpty();
        assertThat(problems(tmKill, Set.of(), Set.of(CHECKPOINTS), Set.of()))
                .containsExactly(
                        "ALERT LineflowJobRestarted did not fire (waited 4 min after the scenario's table check)");
        assertThat(problems(tmKill, Set.of(), Set.of(RESTARTED, CHECKPOINTS), Set.of(CHECKPOINTS)))
                .containsExactly("ALERT still firing 3 min after a healthy scenario: [LineflowCheckpointsFailing]");
    }

    @Test
    void aControlMustRaiseItsOwnAlertsAndMayLeaveThemFiring() {
        KubernetesScenario noCheckpoints = KubernetesScenario.of(Control.NO_CHECKPOINTS);
        KubernetesScenario additiveSink = KubernetesScenario.of(Control.ADDITIVE_SINK);

        assertThat(problems(
                        noCheckpoints,
                        Set.of(),
                        Set.of("LineflowCheckpointingDisabled", CHECKPOINTS),
                        Set.of("LineflowCheckpointingDisabled", CHECKPOINTS)))
                .isEmpty();
        assertThat(problems(noCheckpoints, Set.of(), Set.of(RESTARTED), Set.of()))
                .containsExactly("ALERT LineflowCheckpointingDisabled did not fire (waited 4 min after the"
                        + " scenario's table check)");
        assertThat(problems(additiveSink, Set.of(), Set.of(RESTARTED), Set.of()))
                .as("the continuous audit's own finding is required too")
                .containsExactly(
                        "ALERT LineflowAuditMismatch did not fire (waited 4 min after the scenario's table check)");
    }

    private final List<String> said = new ArrayList<>();
    private final AlertChecks checks = new AlertChecks(Duration.ZERO, Duration.ZERO, Duration.ZERO, said::add);

    @Test
    void aHealthyScenariosAlertProblemsAreItsProblemsAndAControlsAreItsError() throws InterruptedException {
        ScenarioResult healthy =
                new ScenarioResult(KubernetesScenario.of(Fault.TM_POD_KILL).scenario());
        active(CHECKPOINTS);
        try (AlertWatch watch = watch()) {
            checks.raised(KubernetesScenario.of(Fault.TM_POD_KILL), watch, healthy);
        }
        assertThat(healthy.error).isNull();
        assertThat(healthy.problems)
                .containsExactly(
                        "ALERT LineflowJobRestarted did not fire (waited 0 min after the scenario's table check)",
                        "ALERT still firing 0 min after a healthy scenario: [LineflowCheckpointsFailing]");

        ScenarioResult control =
                new ScenarioResult(KubernetesScenario.of(Control.NO_CHECKPOINTS).scenario());
        active();
        try (AlertWatch watch = watch()) {
            checks.raised(KubernetesScenario.of(Control.NO_CHECKPOINTS), watch, control);
        }
        assertThat(control.problems).isEmpty();
        assertThat(control.error)
                .isEqualTo("ALERT LineflowCheckpointingDisabled did not fire (waited 0 min after the scenario's"
                        + " table check)");

        healthy.problems.clear();
        active(RESTARTED);
        try (AlertWatch watch = watch()) {
            checks.raised(KubernetesScenario.of(Fault.TM_POD_KILL), watch, healthy);
        }
        assertThat(healthy.problems).isEmpty();
    }

    @Test
    void afterTheLastHealthyScenarioEveryAlertMustResolve() throws InterruptedException {
        ScenarioResult last =
                new ScenarioResult(KubernetesScenario.of(Fault.TM_POD_KILL).scenario());
        active(RESTARTED);
        try (AlertWatch watch = watch()) {
            checks.resolved(watch, last);
            assertThat(last.problems)
                    .containsExactly(
                            "ALERT still firing 0 min after the last healthy scenario: [LineflowJobRestarted]");

            last.problems.clear();
            active();
            checks.resolved(watch, last);
            assertThat(last.problems).isEmpty();
            assertThat(last.monitoring).singleElement().asString().startsWith("every alert resolved ");
        }
    }
}
