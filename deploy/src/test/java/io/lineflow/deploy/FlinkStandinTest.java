package io.lineflow.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

/**
 * The stand-in Flink image (images/flink-standin) honours what the operator's pods expect: the
 * start scripts, run as the operator runs them, exec java (so it is PID 1 in the pod) with the
 * native-Kubernetes main class, Flink's own memory flags and the JDK 17 opens, lib/ carries
 * what the job leaves to the runtime, and ENABLE_BUILT_IN_PLUGINS enables jars of opt/ as plugins
 * the way the official image does. Runs the real scripts and JVM on this host against the
 * assembled lib/ and opt/; the image tar itself (JRE rootfs, uid, a plugins/ the flink user may
 * write into) is built by scripts/e2e-images.sh.
 */
class FlinkStandinTest {
    private static final Path STANDIN = Repo.ROOT.resolve("images/flink-standin");
    private static final Path ASSEMBLED = STANDIN.resolve("target/flink");
    private static final String JM_MAIN =
            "org.apache.flink.kubernetes.entrypoint.KubernetesApplicationClusterEntrypoint";
    private static final String TM_MAIN = "org.apache.flink.kubernetes.taskmanager.KubernetesTaskExecutorRunner";
    /** The optional plugin of opt/ that kustomize/components/s3-storage enables. */
    private static final String S3_PLUGIN = "flink-s3-fs-hadoop-1.20.1";

    private static Path home;
    private static Path conf;
    private static Path tools;

    @BeforeAll
    static void assembleFlinkHome() throws IOException {
        Repo.run("mvn", "-B", "-ntp", "-q", "-f", STANDIN.resolve("pom.xml").toString(), "clean", "package");
        // The image's layout (scripts/e2e-images.sh): lib, plugins and bin (= scripts/) under FLINK_HOME.
        home = Repo.ROOT.resolve("deploy/target/flink-standin-home");
        conf = Repo.ROOT.resolve("deploy/target/flink-standin-conf");
        tools = Repo.ROOT.resolve("deploy/target/flink-standin-tools");
        for (Path dir : List.of(home, conf, tools)) {
            if (Files.exists(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.sorted((a, b) -> b.compareTo(a)).forEach(FlinkStandinTest::delete);
                }
            }
            Files.createDirectories(dir);
        }
        Files.createSymbolicLink(home.resolve("lib"), ASSEMBLED.resolve("lib"));
        Files.createSymbolicLink(home.resolve("plugins"), ASSEMBLED.resolve("plugins"));
        Files.createSymbolicLink(home.resolve("bin"), STANDIN.resolve("scripts"));
        Files.createDirectories(home.resolve("log"));
        // As the operator writes it: flat keys, the JobManager's process size from the spec.
        Files.writeString(
                conf.resolve("config.yaml"),
                "jobmanager.memory.process.size: 1600m\n"
                        + "env.java.opts.jobmanager: \"-Dlineflow.test.role=jm\"\n"
                        + "env.java.opts.taskmanager: '-Dlineflow.test.role=tm'\n");
        Files.copy(STANDIN.resolve("conf/log4j-console.properties"), conf.resolve("log4j-console.properties"));
        linkImageTools();
    }

    /**
     * Fills {@code tools} with links to this host's copies of the programs the image's rootfs
     * promises (scripts/e2e-images.sh): bash, coreutils, sed, grep and java. The scripts run with
     * only these on PATH, so one that calls, say, find fails here and not first in a pod. The
     * coreutils programs are the ones Debian's package installs (dpkg, as the image build needs).
     */
    private static void linkImageTools() throws IOException {
        Set<String> programs = new java.util.TreeSet<>(List.of("bash", "sed", "grep"));
        for (String file : Repo.run("dpkg", "-L", "coreutils").split("\n")) {
            if (file.matches("(/usr)?/s?bin/[^/]+")) {
                programs.add(Path.of(file).getFileName().toString());
            }
        }
        assertThat(programs).as("coreutils' programs from dpkg").contains("mkdir", "ln", "id", "cat");
        List<Path> hostPath = Stream.of(System.getenv("PATH").split(":"))
                .filter(d -> !d.isEmpty())
                .map(Path::of)
                .toList();
        for (String program : programs) {
            hostPath.stream()
                    .map(d -> d.resolve(program))
                    .filter(Files::isExecutable)
                    .findFirst()
                    .ifPresent(found -> link(tools.resolve(program), found));
        }
        link(tools.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    }

    @Test
    void libHoldsEveryFlinkDependencyTheJobLeavesToTheRuntimeAndNothingItShades() throws IOException {
        Set<String> lib = fileNames(ASSEMBLED.resolve("lib"));
        String jobPom = Files.readString(Repo.ROOT.resolve("job/pom.xml"), StandardCharsets.UTF_8);
        Matcher dep = Pattern.compile(
                        "<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>(.*?)</dependency>",
                        Pattern.DOTALL)
                .matcher(jobPom);
        List<String> provided = new ArrayList<>();
        List<String> shaded = new ArrayList<>();
        while (dep.find()) {
            String body = dep.group(3);
            if (body.contains("<scope>provided</scope>")) {
                provided.add(dep.group(2));
            } else if (!body.contains("<scope>test</scope>") && dep.group(1).equals("org.apache.flink")) {
                shaded.add(dep.group(2));
            }
        }
        assertThat(provided).contains("flink-streaming-java", "flink-clients", "flink-statebackend-rocksdb");
        assertThat(shaded).contains("flink-connector-kafka");
        for (String artifact : provided) {
            assertThat(lib).as("provided by the runtime: " + artifact).anyMatch(n -> n.startsWith(artifact + "-"));
        }
        for (String artifact : shaded) {
            assertThat(lib)
                    .as("shaded into the job jar, so not in lib: " + artifact)
                    .noneMatch(n -> n.startsWith(artifact + "-"));
        }
        assertThat(lib)
                .as("native Kubernetes entry points, Kubernetes HA and the REST API's job endpoints")
                .anyMatch(n -> n.startsWith("flink-kubernetes-1.20.1"))
                .anyMatch(n -> n.startsWith("flink-runtime-web-1.20.1"));
        assertThat(lib.stream()
                        .filter(n -> n.matches(
                                "(log4j-slf4j.*|slf4j-(simple|nop|reload4j|jdk14).*|logback-classic.*)\\.jar")))
                .as("exactly one slf4j binding, log4j 2's, as in Flink's distribution")
                .containsExactly("log4j-slf4j-impl-2.24.3.jar");
        assertThat(lib).noneMatch(n -> n.startsWith("flink-metrics-prometheus"));
        assertThat(fileNames(ASSEMBLED.resolve("plugins/metrics-prometheus")))
                .containsExactly("flink-metrics-prometheus-1.20.1.jar");
        assertThat(lib).noneMatch(n -> n.startsWith("flink-s3-fs-"));
        assertThat(fileNames(ASSEMBLED.resolve("opt")))
                .as("optional plugins, off until ENABLE_BUILT_IN_PLUGINS names them")
                .containsExactly(S3_PLUGIN + ".jar");
    }

    @Test
    void enabledBuiltInPluginIsLinkedFromOptIntoAPluginsFolderOfItsOwnBeforeTheCommandRuns(@TempDir Path tmp)
            throws Exception {
        Path plugins = pluginHome(tmp).resolve("plugins");
        Path jar = plugins.resolve(S3_PLUGIN).resolve(S3_PLUGIN + ".jar");
        // Blanks and empty entries around the name, as a hand-written env value may have them.
        Started started = start(
                pluginEnv(tmp, " " + S3_PLUGIN + ".jar; ;"),
                "test -f \"$FLINK_PLUGINS_DIR/" + S3_PLUGIN + "/" + S3_PLUGIN + ".jar\" && echo present before exec");
        assertThat(started.awaitSuccess())
                .contains("enabled plugin " + S3_PLUGIN + ".jar in " + plugins.resolve(S3_PLUGIN) + "/")
                .contains("present before exec");
        assertThat(fileNames(plugins)).containsExactly(S3_PLUGIN);
        assertThat(fileNames(plugins.resolve(S3_PLUGIN))).containsExactly(S3_PLUGIN + ".jar");
        assertThat(Files.isSameFile(jar, ASSEMBLED.resolve("opt").resolve(S3_PLUGIN + ".jar")))
                .as("%s is opt/'s jar", jar)
                .isTrue();
        // What Flink's plugin loader looks for: a file system factory behind the jar's service file.
        try (JarFile plugin = new JarFile(jar.toFile())) {
            ZipEntry services = plugin.getEntry("META-INF/services/org.apache.flink.core.fs.FileSystemFactory");
            assertThat(services).as("FileSystemFactory service file in %s", jar).isNotNull();
            assertThat(new String(plugin.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8))
                    .contains("org.apache.flink.fs.s3hadoop.S3FileSystemFactory");
        }
        // A restarted container finds the link there already.
        assertThat(start(pluginEnv(tmp, S3_PLUGIN + ".jar"), "true").awaitSuccess())
                .contains("enabled plugin " + S3_PLUGIN + ".jar");
        assertThat(fileNames(plugins.resolve(S3_PLUGIN))).containsExactly(S3_PLUGIN + ".jar");
    }

    @Test
    void builtInPluginNotInOptFailsTheStartNamingWhatOptHoldsAndEnablesNothing(@TempDir Path tmp) throws Exception {
        Path plugins = pluginHome(tmp).resolve("plugins");
        String wanted = S3_PLUGIN + ".jar;flink-s3-fs-presto-1.20.1.jar";
        assertThat(start(pluginEnv(tmp, wanted), "echo the command ran").awaitFailure())
                .contains("ENABLE_BUILT_IN_PLUGINS='" + wanted + "' names 'flink-s3-fs-presto-1.20.1.jar',"
                        + " which is not in " + tmp.resolve("opt") + "; allowed: " + S3_PLUGIN + ".jar")
                .doesNotContain("the command ran");
        assertThat(fileNames(plugins))
                .as("nothing enabled when one name is wrong")
                .isEmpty();
        // Only names of opt/'s own files: no way out of it.
        assertThat(start(pluginEnv(tmp, "../opt/" + S3_PLUGIN + ".jar"), "true").awaitFailure())
                .contains("names '../opt/" + S3_PLUGIN + ".jar', which is not in");
        assertThat(start(
                                Map.of(
                                        "FLINK_HOME", tmp.toString(),
                                        "FLINK_PLUGINS_DIR",
                                                tmp.resolve("missing").toString(),
                                        "ENABLE_BUILT_IN_PLUGINS", S3_PLUGIN + ".jar"),
                                "true")
                        .awaitFailure())
                .contains("the plugins directory " + tmp.resolve("missing") + " is not a directory writable by uid");
    }

    @Test
    void jobManagerStartsAsTheOperatorRunsItAndExecsJavaWithFlinksMemoryFlags() throws Exception {
        Started jm =
                start(Map.of(), "kubernetes-jobmanager.sh kubernetes-application -Dkubernetes.cluster-id=standin-test");
        List<String> args = jm.javaArguments();
        assertThat(args)
                .as("heap and metaspace as BashJavaUtils computes them for a 1600m process")
                .contains("-Xmx1073741824", "-Xms1073741824", "-XX:MaxMetaspaceSize=268435456")
                .contains("--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED")
                .contains("-Dlineflow.test.role=jm")
                .doesNotContain("-Dlineflow.test.role=tm")
                .contains("-Dlog4j.configurationFile=file:" + conf + "/log4j-console.properties")
                .contains(JM_MAIN, "jobmanager.memory.heap.size=1073741824b", "-Dkubernetes.cluster-id=standin-test");
        // Nothing more to start: no job jar is configured, so Flink gives up on its own.
        String output = jm.awaitExit();
        assertThat(output).contains("Starting KubernetesApplicationClusterEntrypoint (Version: 1.20.1");
        assertThat(home.resolve("log/flink--kubernetes-application-0-standin-jm.log"))
                .exists();
    }

    @Test
    void taskManagerExecsJavaWithTheMemoryFlagsFlinkPassesInItsEnvironment() throws Exception {
        Started tm = start(
                Map.of(
                        "FLINK_TM_JVM_MEM_OPTS",
                        "-Xmx123m -Xms123m -XX:MaxDirectMemorySize=50m -XX:MaxMetaspaceSize=100m"),
                "kubernetes-taskmanager.sh -Dtaskmanager.resource-id=standin-tm-1");
        try {
            assertThat(tm.javaArguments())
                    .contains("-Xmx123m", "-XX:MaxDirectMemorySize=50m", "-Dlineflow.test.role=tm", TM_MAIN)
                    .contains("--configDir", conf.toString(), "-Dtaskmanager.resource-id=standin-tm-1")
                    .contains("--add-opens=java.base/java.lang=ALL-UNNAMED");
        } finally {
            tm.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void badStartsFailAtOnceNamingWhatIsWrongAndWhatIsAllowed() throws Exception {
        assertThat(start(Map.of(), "kubernetes-taskmanager.sh").awaitFailure())
                .contains("FLINK_TM_JVM_MEM_OPTS is not set");
        assertThat(start(Map.of(), "kubernetes-jobmanager.sh kubernetes-session")
                        .awaitFailure())
                .contains("'kubernetes-session' is not supported; allowed: kubernetes-application");
    }

    /** A FLINK_HOME of its own under {@code tmp}: the assembled opt/ and an empty plugins/. */
    private static Path pluginHome(Path tmp) throws IOException {
        Files.createSymbolicLink(tmp.resolve("opt"), ASSEMBLED.resolve("opt"));
        Files.createDirectories(tmp.resolve("plugins"));
        return tmp;
    }

    private static Map<String, String> pluginEnv(Path home, String enable) {
        return Map.of(
                "FLINK_HOME", home.toString(),
                "FLINK_PLUGINS_DIR", home.resolve("plugins").toString(),
                "ENABLE_BUILT_IN_PLUGINS", enable);
    }

    /** Runs `/docker-entrypoint.sh bash -c COMMAND` the way the operator's pods do. */
    private static Started start(Map<String, String> env, String command) throws IOException {
        Path out = Files.createTempFile(Repo.ROOT.resolve("deploy/target"), "standin", ".log");
        ProcessBuilder pb = new ProcessBuilder(
                        STANDIN.resolve("scripts/docker-entrypoint.sh").toString(), "bash", "-c", command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile());
        Map<String, String> e = pb.environment();
        e.keySet().removeIf(k -> k.startsWith("FLINK_") || k.equals("JVM_ARGS") || k.equals("ENABLE_BUILT_IN_PLUGINS"));
        e.put("PATH", home.resolve("bin") + ":" + tools);
        e.put("FLINK_HOME", home.toString());
        e.put("FLINK_CONF_DIR", conf.toString());
        e.put("FLINK_LIB_DIR", home.resolve("lib").toString());
        e.put("FLINK_PLUGINS_DIR", home.resolve("plugins").toString());
        e.put("HOSTNAME", "standin-jm");
        e.put("_POD_IP_ADDRESS", "127.0.0.1");
        e.putAll(env);
        return new Started(pb.start(), out);
    }

    /** A started entry point and its combined output. */
    private record Started(Process process, Path output) {
        /** The command line of the started process once it is java: the same pid, so exec'd. */
        List<String> javaArguments() throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                ProcessHandle.Info info = process.info();
                Optional<String> cmd = info.command();
                if (cmd.isPresent()
                        && cmd.get().endsWith("/java")
                        && info.arguments().isPresent()) {
                    List<String> args = List.of(info.arguments().get());
                    if (args.contains(JM_MAIN) || args.contains(TM_MAIN)) {
                        return args;
                    }
                }
                if (!process.isAlive()) {
                    throw new AssertionError("exited " + process.exitValue()
                            + " without exec'ing java in its own pid:\n" + Files.readString(output));
                }
                Thread.sleep(20);
            }
            process.destroyForcibly();
            throw new AssertionError("pid " + process.pid() + " never became java:\n" + Files.readString(output));
        }

        String awaitExit() throws Exception {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            return Files.readString(output);
        }

        String awaitSuccess() throws Exception {
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String out = Files.readString(output);
            assertThat(process.exitValue()).as(out).isZero();
            return out;
        }

        String awaitFailure() throws Exception {
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String out = Files.readString(output);
            assertThat(process.exitValue()).as(out).isEqualTo(1);
            return out;
        }
    }

    private static Set<String> fileNames(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    private static void link(Path link, Path target) {
        try {
            Files.createSymbolicLink(link, target);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void delete(Path p) {
        try {
            Files.delete(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
