package io.lineflow.k8s;

import io.lineflow.testing.Commands;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A running kube-apiserver for tests: admin and ServiceAccount clients, kubectl, namespaces. */
public final class KubeEnv implements ExtensionContext.Store.CloseableResource {

    /** Where {@code make k8s-test-env} keeps its server; reused when it answers. */
    static final Path SHARED_STATE = Repo.ROOT.resolve(".cache/k8s-env");
    /** Stand-ins for CRDs of other projects that the overlays use (see the file's comment). */
    private static final List<String> EXTRA_CRDS =
            List.of("/crds/podmonitors.monitoring.coreos.com.yaml", "/crds/prometheusrules.monitoring.coreos.com.yaml");

    private final Path state;
    private final boolean owned;
    private final String server;
    private final Path ca;
    private final Path kubeconfig;
    private final KubernetesClient admin;
    private final List<KubernetesClient> clients = new CopyOnWriteArrayList<>();
    private final List<String> crds = new ArrayList<>();

    private KubeEnv(Path state, boolean owned) {
        this.state = state;
        this.owned = owned;
        Properties env = new Properties();
        try (InputStream in = Files.newInputStream(state.resolve("env"))) {
            env.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.server = env.getProperty("K8S_SERVER");
        this.ca = Path.of(env.getProperty("K8S_CA"));
        this.kubeconfig = Path.of(env.getProperty("K8S_KUBECONFIG"));
        this.admin = client(env.getProperty("K8S_TOKEN"), "default");
    }

    /** Reuses the server of {@code make k8s-test-env} if it answers, else starts one for this run. */
    static KubeEnv startOrReuse() {
        KubeEnv env;
        if (Repo.exec(null, List.of(Repo.ENV_SCRIPT.toString(), "status", SHARED_STATE.toString()))
                .ok()) {
            env = new KubeEnv(SHARED_STATE, false);
        } else {
            Path state = Path.of(System.getProperty(
                    "lineflow.k8s.state", Repo.TARGET.resolve("k8s-env").toString()));
            List<String> start = List.of(Repo.ENV_SCRIPT.toString(), "start", state.toString());
            Repo.exec(null, start).orFail();
            env = new KubeEnv(state, true);
            // Also when the JVM is ended without closing the JUnit store.
            Runtime.getRuntime().addShutdownHook(new Thread(env::stopIfOwned));
        }
        env.installCrds();
        return env;
    }

    /** The server's URL, e.g. https://127.0.0.1:40123. */
    public String server() {
        return server;
    }

    /** An admin client (system:masters), for setting up and for reading what others wrote. */
    public KubernetesClient admin() {
        return admin;
    }

    /** Names of the CRDs installed (established) on the server. */
    public List<String> crds() {
        return List.copyOf(crds);
    }

    /** Creates a namespace with a unique name, so tests never meet each other's objects. */
    public String newNamespace(String prefix) {
        String name =
                prefix + "-" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
        createNamespace(name);
        return name;
    }

    /** Creates a namespace of a fixed name unless it exists (no controller-manager: never deleted). */
    public void createNamespace(String name) {
        if (admin.namespaces().withName(name).get() == null) {
            admin.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(name)
                            .endMetadata()
                            .build())
                    .create();
        }
    }

    /**
     * A client authenticated as ServiceAccount {@code namespace/name}, with a token from the
     * TokenRequest API (the account must exist): the server applies exactly its RBAC.
     */
    public KubernetesClient clientFor(String namespace, String serviceAccount) {
        TokenRequest request = admin.serviceAccounts()
                .inNamespace(namespace)
                .withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(3600L)
                        .endSpec()
                        .build());
        return client(request.getStatus().getToken(), namespace);
    }

    /**
     * Writes a kubeconfig for ServiceAccount {@code namespace/name} (TokenRequest token, 1 h), for
     * processes outside this JVM, e.g. local JobManagers with {@code high-availability.type:
     * kubernetes} ({@code kubernetes.config.file}).
     */
    public Path kubeconfigFor(String namespace, String serviceAccount) {
        TokenRequest request = admin.serviceAccounts()
                .inNamespace(namespace)
                .withName(serviceAccount)
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(3600L)
                        .endSpec()
                        .build());
        String yaml = String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters: [{name: lineflow-test, cluster: {server: \"" + server + "\", certificate-authority: \"" + ca
                        + "\"}}]",
                "users: [{name: " + serviceAccount + ", user: {token: \""
                        + request.getStatus().getToken() + "\"}}]",
                "contexts: [{name: lineflow-test, context: {cluster: lineflow-test, user: " + serviceAccount
                        + ", namespace: " + namespace + "}}]",
                "current-context: lineflow-test",
                "");
        try {
            Path file = Repo.TARGET.resolve("kubeconfigs").resolve(namespace + "-" + serviceAccount + ".yaml");
            Files.createDirectories(file.getParent());
            Files.writeString(file, yaml);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the pinned kubectl against this server as admin. */
    public Commands.Result kubectl(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Repo.KUBECTL.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--cache-dir",
                Repo.TARGET.resolve("kubectl-cache").toString()));
        command.addAll(List.of(args));
        return Repo.exec(stdin, command);
    }

    /** Applies manifests for real (as admin) into {@code namespace}; fails on any refusal. */
    public String apply(String namespace, String yaml) {
        return kubectl(yaml, "apply", "-n", namespace, "-f", "-").orFail().out();
    }

    private KubernetesClient client(String token, String namespace) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(server)
                .withCaCertFile(ca.toString())
                .withOauthToken(token)
                .withNamespace(namespace)
                .withRequestRetryBackoffLimit(0)
                .build();
        KubernetesClient client =
                new KubernetesClientBuilder().withConfig(config).build();
        clients.add(client);
        return client;
    }

    /**
     * Installs the CRDs of the operator release lineflow installs and the stand-ins, and waits until
     * each is established. A server kept from an earlier run ({@code make k8s-test-env}) may hold
     * another release's: those are replaced, so the server always checks against this release's.
     */
    private void installCrds() {
        var api = admin.apiextensions().v1().customResourceDefinitions();
        List<CustomResourceDefinition> wanted = new ArrayList<>();
        try {
            for (Path file : Repo.operatorCrds()) {
                try (InputStream in = Files.newInputStream(file)) {
                    wanted.add(api.load(in).item());
                }
            }
            for (String extra : EXTRA_CRDS) {
                try (InputStream in = KubeEnv.class.getResourceAsStream(extra)) {
                    wanted.add(api.load(in).item());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (CustomResourceDefinition crd : wanted) {
            String name = crd.getMetadata().getName();
            CustomResourceDefinition existing = api.withName(name).get();
            if (existing == null) {
                api.resource(crd).create();
            } else {
                crd.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
                api.resource(crd).update();
            }
            api.withName(name)
                    .waitUntilCondition(
                            c -> c != null
                                    && c.getStatus() != null
                                    && c.getStatus().getConditions() != null
                                    && c.getStatus().getConditions().stream()
                                            .anyMatch(k -> k.getType().equals("Established")
                                                    && k.getStatus().equals("True")),
                            30,
                            TimeUnit.SECONDS);
            crds.add(name);
        }
    }

    private void stopIfOwned() {
        if (owned) {
            Repo.exec(null, List.of(Repo.ENV_SCRIPT.toString(), "stop", state.toString()));
        }
    }

    @Override
    public void close() {
        clients.forEach(KubernetesClient::close);
        stopIfOwned();
    }
}
