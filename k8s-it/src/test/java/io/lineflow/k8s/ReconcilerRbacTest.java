package io.lineflow.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.reconciler.ReconcilerOptions;
import io.lineflow.reconciler.TestUtils;
import io.lineflow.reconciler.TestingClock;
import io.lineflow.reconciler.act.EventPublisher;
import io.lineflow.reconciler.act.Metrics;
import io.lineflow.reconciler.act.Remediator;
import io.lineflow.reconciler.act.SummaryPublisher;
import io.lineflow.reconciler.audit.JobSettings;
import io.lineflow.reconciler.controller.Reconciler;
import io.lineflow.reconciler.controller.ReconcilerController;
import io.lineflow.reconciler.observe.Annotations;
import io.lineflow.reconciler.observe.DeploymentObserver;
import io.lineflow.reconciler.observe.HistoryStore;
import io.lineflow.settings.LineflowOptions;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The reconciler's real controller, observer and publishers, authenticated as its own
 * ServiceAccount with the RBAC of manifests/reconciler applied for real: what it needs works, what
 * it must not do is refused by the server. Flink REST and Kafka are fakes; pods are only stored.
 */
@ExtendWith(KubeApiServerExtension.class)
class ReconcilerRbacTest {

    static final String SA = "lineflow-reconciler";
    static KubeEnv env;
    static KubernetesClient admin;

    final TestingClock clock = new TestingClock(Instant.now());
    final Fakes.FlinkRest rest = new Fakes.FlinkRest(clock);
    ReconcilerController controller;

    @BeforeAll
    static void server(KubeEnv kube) {
        env = kube;
        admin = kube.admin();
    }

    @AfterEach
    void stop() {
        if (controller != null) {
            controller.close();
        }
    }

    /** A namespace with manifests/reconciler (and remediation/ if asked) applied as `make deploy` would. */
    static String namespaceWithReconciler(boolean remediation) {
        String ns = env.newNamespace(remediation ? "lf-rem" : "lf-rec");
        env.apply(ns, Repo.kustomize(Repo.ROOT.resolve("manifests/reconciler")));
        if (remediation) {
            env.apply(ns, Repo.kustomize(Repo.ROOT.resolve("manifests/reconciler/remediation")));
        }
        return ns;
    }

    /** The reconciler as Main wires it, on a client of the reconciler's ServiceAccount. */
    ReconcilerController reconciler(String ns, boolean remediationEnabled) {
        KubernetesClient sa = env.clientFor(ns, SA);
        Configuration conf = ReconcilerOptions.fromMap(Map.of(
                ReconcilerOptions.NAMESPACES.key(),
                ns,
                ReconcilerOptions.REMEDIATION_ENABLED.key(),
                String.valueOf(remediationEnabled)));
        EventPublisher events = new EventPublisher(sa, conf, clock);
        Reconciler reconciler = new Reconciler(
                conf,
                new DeploymentObserver(conf, rest, new Fakes.Kafka(clock), clock),
                null,
                events,
                new SummaryPublisher(sa, conf, clock),
                new Remediator(sa, events, conf, clock),
                new Metrics(conf, clock),
                new HistoryStore(conf.get(ReconcilerOptions.HISTORY_RETENTION)),
                clock);
        controller = new ReconcilerController(sa, conf, reconciler, clock);
        controller.startInformers();
        await("informers synced (list + watch FlinkDeployments)", controller::ready);
        return controller;
    }

    /** Creates the deployment as the operator's user would, then writes its status as the operator does. */
    static FlinkDeployment create(String ns, String name, Consumer<FlinkDeployment> change) {
        FlinkDeployment fd = Fakes.flinkDeployment(ns, name);
        change.accept(fd);
        FlinkDeployment created = admin.resource(fd).create();
        created.setStatus(TestUtils.runningDeploymentStatus());
        return admin.resource(created).updateStatus();
    }

    static List<Event> events(String ns) {
        return admin.v1().events().inNamespace(ns).list().getItems();
    }

    static Map<String, Integer> reasons(String ns) {
        return events(ns).stream().collect(Collectors.toMap(Event::getReason, Event::getCount, Integer::sum));
    }

    void pass() {
        controller.passSafely();
        clock.advance(Duration.ofSeconds(30));
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static void pod(String ns, String name, String app, String component) {
        admin.pods()
                .inNamespace(ns)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels("app", app)
                        .addToLabels("component", component)
                        .addToLabels("type", "flink-native-kubernetes")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("flink-main-container")
                        .withImage("lineflow/job:test")
                        .endContainer()
                        .withServiceAccountName("lineflow-flink")
                        .endSpec()
                        .build())
                .create();
    }

    static List<String> podNames(String ns) {
        return admin.pods().inNamespace(ns).list().getItems().stream()
                .map(p -> p.getMetadata().getName())
                .sorted()
                .toList();
    }

    static void assertForbidden(String what, Runnable call) {
        assertThatThrownBy(call::run)
                .as(what)
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).as(what).isEqualTo(403));
    }

    @Test
    void watchesDeploymentsAndWritesEventsAndItsSummaryUnderItsOwnRbac() {
        String ns = namespaceWithReconciler(false);
        create(ns, "lineflow", fd -> fd.getSpec().getFlinkConfiguration().remove("high-availability.type"));
        create(ns, "other", fd -> fd.getSpec().getFlinkConfiguration().remove("state.savepoints.dir"));
        reconciler(ns, false);

        pass();

        // events: create
        assertThat(reasons(ns)).containsEntry("HA_DISABLED", 1);
        assertThat(events(ns))
                .anySatisfy(e -> assertThat(e.getInvolvedObject().getName()).isEqualTo("other"));
        Event ha = events(ns).stream()
                .filter(e -> e.getReason().equals("HA_DISABLED"))
                .findFirst()
                .orElseThrow();
        assertThat(ha.getInvolvedObject().getKind()).isEqualTo("FlinkDeployment");
        assertThat(ha.getInvolvedObject().getUid()).isNotBlank();
        // configmaps: create
        ConfigMap summary = admin.configMaps()
                .inNamespace(ns)
                .withName("lineflow" + ReconcilerOptions.SUMMARY_SUFFIX.defaultValue())
                .get();
        assertThat(summary).isNotNull();
        assertThat(summary.getData().get(SummaryPublisher.DATA_KEY)).contains("HA_DISABLED");

        // watch: the informer sees the fix without a new list; configmaps: update; events: create
        FlinkDeployment fixed = admin.resources(FlinkDeployment.class)
                .inNamespace(ns)
                .withName("lineflow")
                .get();
        fixed.getSpec().getFlinkConfiguration().put("high-availability.type", "kubernetes");
        admin.resource(fixed).update();
        await("summary updated to healthy after the watched change", () -> {
            controller.passSafely(); // the clock stands still, so no finding is due for repetition
            String json = admin.configMaps()
                    .inNamespace(ns)
                    .withName(summary.getMetadata().getName())
                    .get()
                    .getData()
                    .get(SummaryPublisher.DATA_KEY);
            return !json.contains("HA_DISABLED");
        });
        assertThat(reasons(ns)).containsKey("HA_DISABLED_RESOLVED");

        // events: patch (a persisting finding is repeated by bumping the count)
        String otherReason = events(ns).stream()
                .filter(e -> e.getInvolvedObject().getName().equals("other"))
                .map(Event::getReason)
                .findFirst()
                .orElseThrow();
        clock.advance(ReconcilerOptions.EVENT_REPEAT_INTERVAL.defaultValue().plusMinutes(1));
        pass();
        assertThat(reasons(ns)).containsEntry(otherReason, 2);
    }

    @Test
    void remediationDeletesOnlyTheTaskManagerPodsWithTheRemediationRole() {
        String ns = namespaceWithReconciler(true);
        create(
                ns,
                "lineflow",
                fd -> fd.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.REMEDIATE, "true"))));
        create(ns, "other", fd -> {});
        pod(ns, "lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        pod(ns, "lineflow-taskmanager-1-2", "lineflow", "taskmanager");
        pod(ns, "lineflow-7d9f8c-jm", "lineflow", "jobmanager");
        pod(ns, "other-taskmanager-1-1", "other", "taskmanager");
        rest.duplicate("lineflow");
        reconciler(ns, true);

        pass();
        pass();

        assertThat(podNames(ns)).containsExactly("lineflow-7d9f8c-jm", "other-taskmanager-1-1");
        assertThat(reasons(ns))
                .containsKeys("DUPLICATE_CONSUMPTION", Remediator.REASON)
                .doesNotContainKey("RemediationFailed");
    }

    @Test
    void withoutTheRemediationRoleNoPodCanBeDeletedAndTheFailureIsReported() {
        String ns = namespaceWithReconciler(false);
        create(
                ns,
                "lineflow",
                fd -> fd.getMetadata().setAnnotations(new HashMap<>(Map.of(Annotations.REMEDIATE, "true"))));
        pod(ns, "lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        rest.duplicate("lineflow");
        reconciler(ns, true); // switched on in its settings, but not granted

        pass();
        pass();

        assertThat(podNames(ns)).containsExactly("lineflow-taskmanager-1-1");
        assertThat(events(ns))
                .filteredOn(e -> e.getReason().equals("RemediationFailed"))
                .singleElement()
                .satisfies(e -> assertThat(e.getMessage()).contains("Forbidden"));
    }

    /** The continuous audit reads a deployment's settings file from its ConfigMap with get alone. */
    @Test
    void readsTheJobsSettingsConfigMapOfItsNamespaceOnly() {
        String ns = namespaceWithReconciler(false);
        String other = env.newNamespace("lf-other");
        for (String n : List.of(ns, other)) {
            admin.configMaps()
                    .inNamespace(n)
                    .resource(new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("lineflow-config-8h2k4")
                            .endMetadata()
                            .addToData(
                                    "lineflow.properties",
                                    "lineflow.kafka.bootstrap-servers=kafka:9092\n"
                                            + "lineflow.jdbc.url=jdbc:postgresql://postgres:5432/lineflow\n"
                                            + "lineflow.window.size=10 min\n")
                            .build())
                    .create();
        }
        KubernetesClient sa = env.clientFor(ns, SA);

        Configuration settings = JobSettings.read(
                TestUtils.lineflowDeployment(ns, "lineflow", "lineflow-config-8h2k4"), JobSettings.from(sa));

        assertThat(settings.get(LineflowOptions.WINDOW_SIZE)).isEqualTo(Duration.ofMinutes(10));
        assertForbidden(
                "read the settings ConfigMap of another namespace",
                () -> JobSettings.from(sa).data(other, "lineflow-config-8h2k4"));
        assertForbidden("list ConfigMaps", () -> sa.configMaps().inNamespace(ns).list());
    }

    @Test
    void isRefusedSecretsOtherNamespacesPodsAndClusterScope() {
        String ns = namespaceWithReconciler(false);
        String other = env.newNamespace("lf-other");
        admin.secrets()
                .inNamespace(ns)
                .resource(new io.fabric8.kubernetes.api.model.SecretBuilder()
                        .withNewMetadata()
                        .withName("lineflow-db")
                        .endMetadata()
                        .addToStringData("password", "s3cret")
                        .build())
                .create();
        pod(ns, "lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        create(other, "lineflow", fd -> {});
        KubernetesClient sa = env.clientFor(ns, SA);

        assertForbidden(
                "get a Secret",
                () -> sa.secrets().inNamespace(ns).withName("lineflow-db").get());
        assertForbidden("list Secrets", () -> sa.secrets().inNamespace(ns).list());
        assertForbidden("list pods", () -> sa.pods().inNamespace(ns).list());
        assertForbidden(
                "delete a pod",
                () -> sa.pods()
                        .inNamespace(ns)
                        .withName("lineflow-taskmanager-1-1")
                        .delete());
        assertForbidden(
                "delete a FlinkDeployment",
                () -> sa.resources(FlinkDeployment.class)
                        .inNamespace(ns)
                        .withName("x")
                        .delete());
        assertForbidden(
                "delete a ConfigMap",
                () -> sa.configMaps()
                        .inNamespace(ns)
                        .withName("lineflow-config")
                        .delete());
        assertForbidden(
                "list FlinkDeployments of another namespace",
                () -> sa.resources(FlinkDeployment.class).inNamespace(other).list());
        assertForbidden(
                "list FlinkDeployments cluster-wide",
                () -> sa.resources(FlinkDeployment.class).inAnyNamespace().list());
        assertForbidden(
                "write a ConfigMap in another namespace",
                () -> sa.configMaps()
                        .inNamespace(other)
                        .resource(new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("x")
                                .endMetadata()
                                .build())
                        .create());
        assertForbidden(
                "write an Event in another namespace",
                () -> sa.v1()
                        .events()
                        .inNamespace(other)
                        .resource(new io.fabric8.kubernetes.api.model.EventBuilder()
                                .withNewMetadata()
                                .withName("x")
                                .endMetadata()
                                .withNewInvolvedObject()
                                .withKind("Pod")
                                .withName("x")
                                .withNamespace(other)
                                .endInvolvedObject()
                                .build())
                        .create());
        assertForbidden("list namespaces", () -> sa.namespaces().list());
        assertForbidden("list nodes", () -> sa.nodes().list());
        assertForbidden(
                "change its own Role",
                () -> sa.rbac().roles().inNamespace(ns).withName(SA).edit(r -> r));
        // Still allowed: what it needs (list, not just a no-op).
        assertThat(sa.resources(FlinkDeployment.class).inNamespace(ns).list().getItems())
                .isEmpty();
    }

    @Test
    void theRemediationRoleReachesPodsOfItsNamespaceOnlyAndNoJobManagerDeployment() {
        String ns = namespaceWithReconciler(true);
        String other = env.newNamespace("lf-other");
        pod(ns, "lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        pod(other, "lineflow-taskmanager-1-1", "lineflow", "taskmanager");
        KubernetesClient sa = env.clientFor(ns, SA);

        assertThat(sa.pods().inNamespace(ns).list().getItems()).hasSize(1);
        assertForbidden(
                "delete a pod of another namespace",
                () -> sa.pods()
                        .inNamespace(other)
                        .withName("lineflow-taskmanager-1-1")
                        .delete());
        assertForbidden(
                "get a pod",
                () -> sa.pods()
                        .inNamespace(ns)
                        .withName("lineflow-taskmanager-1-1")
                        .get());
        assertForbidden(
                "create a pod",
                () -> sa.pods()
                        .inNamespace(ns)
                        .resource(new PodBuilder()
                                .withNewMetadata()
                                .withName("x")
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("c")
                                .withImage("i")
                                .endContainer()
                                .endSpec()
                                .build())
                        .create());
        assertForbidden(
                "patch a pod",
                () -> sa.pods()
                        .inNamespace(ns)
                        .withName("lineflow-taskmanager-1-1")
                        .edit(p -> new PodBuilder(p)
                                .editMetadata()
                                .addToLabels("x", "y")
                                .endMetadata()
                                .build()));
        assertForbidden(
                "delete the JobManager Deployment",
                () -> sa.apps()
                        .deployments()
                        .inNamespace(ns)
                        .withName("lineflow")
                        .delete());
        assertForbidden("read Secrets", () -> sa.secrets().inNamespace(ns).list());
        // RBAC cannot select pods by label: the Role lets it delete any pod of its namespace, a
        // JobManager pod included. That TaskManagers are the only pods it deletes is the code's
        // guarantee (see remediationDeletesOnlyTheTaskManagerPodsWithTheRemediationRole).
        var review = sa.authorization()
                .v1()
                .selfSubjectAccessReview()
                .create(new SelfSubjectAccessReviewBuilder()
                        .withNewSpec()
                        .withResourceAttributes(new ResourceAttributesBuilder()
                                .withNamespace(ns)
                                .withVerb("delete")
                                .withResource("pods")
                                .withName("lineflow-7d9f8c-jm")
                                .build())
                        .endSpec()
                        .build());
        assertThat(review.getStatus().getAllowed()).isTrue();
    }

    @Test
    void aRoleMissingWatchStopsTheReconcilerFromStarting() {
        String ns = namespaceWithReconciler(false);
        Role role = admin.rbac().roles().inNamespace(ns).withName(SA).get();
        role.getRules().stream()
                .filter(r -> r.getResources().contains("flinkdeployments"))
                .forEach(r -> r.setVerbs(List.of("get", "list")));
        admin.resource(role).update();
        create(ns, "lineflow", fd -> {});

        // The informer lists, then fails to watch: the reconciler refuses to start (Main exits).
        assertThatThrownBy(() -> reconciler(ns, false))
                .hasMessageContaining("403")
                .hasMessageContaining("watch=true");
    }
}
