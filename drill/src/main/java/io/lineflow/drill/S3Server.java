package io.lineflow.drill;

import io.lineflow.drill.core.Await;
import io.lineflow.testing.ManagedProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * S3Proxy on its filesystem-nio2 backend, as a child process of its own: the S3-compatible store of
 * the e2e node, for Flink's checkpoints, savepoints and HA metadata. It runs from S3Proxy's own
 * classpath ({@code drill/s3-server/pom.xml}), never the drill's, listens on {@code host} only
 * and accepts only requests signed with the one access key (AWS v2 or v4). Stopped and started
 * again, it serves the same data: every object is a file under {@link #dataDir()}.
 *
 * <p>The filesystem backend calls a bucket or object public-read when "others" may read its
 * directory or file. So the data directory and the bucket are created 0700 and S3Proxy runs with
 * umask 077 (each object a 0600 file): an unsigned request is refused, and that refusal (HTTP 403)
 * is what {@link #start} waits for.
 */
public final class S3Server implements AutoCloseable {
    /** S3Proxy's entry point. */
    static final String MAIN = "org.gaul.s3proxy.Main";

    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final String PRIVATE_DIR = "rwx------";

    private final Path dir;
    private final String host;
    private final int port;
    private final String classpath;
    private final String bucket;
    private final Path properties;
    private final Path logConfig;
    private final Path log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ManagedProcess process;

    /**
     * Prepares {@code dir}: the data directory with the bucket, the properties file (mode 600, it
     * holds the secret key) and the logging configuration. Nothing is started yet.
     *
     * @param classpath S3Proxy's classpath, as {@link #classpath(Path)} reads it
     */
    public S3Server(
            Path dir, String host, int port, String classpath, String bucket, String accessKey, String secretKey)
            throws IOException {
        this.dir = dir.toAbsolutePath();
        this.host = host;
        this.port = port;
        this.classpath = classpath;
        this.bucket = bucket;
        this.properties = this.dir.resolve("s3proxy.properties");
        this.logConfig = this.dir.resolve("logback.xml");
        this.log = this.dir.resolve("s3proxy.log");
        Files.createDirectories(this.dir);
        privateDir(dataDir());
        privateDir(bucketDir());
        Files.createDirectories(this.dir.resolve("tmp"));
        writeProperties(accessKey, secretKey);
        // Without a configuration logback logs at DEBUG: Jetty's every step, for every request.
        Files.writeString(logConfig, """
                <configuration>
                  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <root level="INFO"><appender-ref ref="OUT"/></root>
                </configuration>
                """);
    }

    /**
     * S3Proxy's classpath from the file {@code mvn -f drill/s3-server/pom.xml
     * dependency:build-classpath} writes; the error says how to make it.
     */
    public static String classpath(Path file) {
        String cp;
        try {
            cp = Files.readString(file).trim();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read S3Proxy's classpath file " + file + " (" + e.getMessage()
                            + "); `mvn -f drill/s3-server/pom.xml dependency:build-classpath` writes it",
                    e);
        }
        if (!cp.contains("/s3proxy-")) {
            throw new IllegalArgumentException("S3Proxy's classpath file " + file
                    + " names no s3proxy jar; `mvn -f drill/s3-server/pom.xml dependency:build-classpath` writes it");
        }
        return cp;
    }

    public String endpoint() {
        return "http://" + host + ":" + port;
    }

    public String bucket() {
        return bucket;
    }

    /** The filesystem backend's base directory: one directory per bucket, one file per object. */
    public Path dataDir() {
        return dir.resolve("data");
    }

    public Path bucketDir() {
        return dataDir().resolve(bucket);
    }

    public Path log() {
        return log;
    }

    /** The running server's process id; fails when it is not running. */
    public synchronized long pid() {
        return running().pid();
    }

    /**
     * Starts S3Proxy on the data of {@link #dataDir()} and returns once it refuses an unsigned
     * request, as it must; fails if the port is taken, the process exits, it answers anything else
     * or does not answer within 90 s.
     */
    public synchronized void start() {
        if (process != null) {
            throw new IllegalStateException("the S3 server on " + endpoint() + " runs already (" + process + ")");
        }
        if (listening()) {
            // Else the readiness probe below would be answered by that other server.
            throw new IllegalStateException("something listens on " + host + ":" + port
                    + " already (an S3 server of an earlier run?); the S3 server cannot start there");
        }
        List<String> command = new ArrayList<>(List.of(
                "/bin/sh",
                "-c",
                // umask 077: every object S3Proxy writes is a 0600 file, private to S3 clients too.
                "umask 077 && exec \"$@\"",
                "s3proxy",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                "-Dlogback.configurationFile=" + logConfig,
                "-cp",
                classpath,
                MAIN,
                "--properties",
                properties.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        // The server needs none of the run's secrets (database password, its own keys) in its environment.
        builder.environment().keySet().removeIf(k -> k.startsWith("LINEFLOW_"));
        process = ManagedProcess.start("s3proxy", builder, log);
        try {
            Await.orFail(
                    START_LIMIT,
                    POLL,
                    "S3Proxy refusing an unsigned request on " + endpoint() + " (log: " + log + ")",
                    this::refusesUnsigned);
        } catch (RuntimeException e) {
            process.stop();
            process = null;
            throw e;
        }
    }

    /** Stops S3Proxy (SIGTERM, kill -9 after 30 s) and returns once it has exited; the data stays. */
    public synchronized void stop() {
        ManagedProcess p = running();
        p.stop();
        if (p.alive()) {
            throw new IllegalStateException(p + " did not exit");
        }
        process = null;
    }

    /** Stops the server if it runs. */
    @Override
    public synchronized void close() {
        if (process != null) {
            stop();
        }
    }

    private ManagedProcess running() {
        if (process == null) {
            throw new IllegalStateException("the S3 server on " + endpoint() + " is not running");
        }
        return process;
    }

    /**
     * True once an unsigned GET of the bucket is refused (403); false while nothing answers. Any
     * other answer is an error: 200 would mean the bucket is readable without the key.
     */
    private boolean refusesUnsigned() {
        if (!process.alive()) {
            throw new IllegalStateException(process + " exited while starting; see " + log);
        }
        int status;
        try {
            status = http.send(
                            HttpRequest.newBuilder(URI.create(endpoint() + "/" + bucket))
                                    .timeout(Duration.ofSeconds(5))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            // Not listening yet (connection refused), or not answering yet.
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the S3 server", e);
        }
        if (status != 403) {
            throw new IllegalStateException("S3Proxy on " + endpoint() + " answered an unsigned GET of bucket "
                    + bucket + " with HTTP " + status + ", not 403 (AccessDenied)"
                    + (status == 200 ? ": the bucket is readable without the key" : "") + "; see " + log);
        }
        return true;
    }

    private boolean listening() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void writeProperties(String accessKey, String secretKey) throws IOException {
        Properties p = new Properties();
        p.setProperty("s3proxy.endpoint", endpoint());
        p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
        p.setProperty("s3proxy.identity", accessKey);
        p.setProperty("s3proxy.credential", secretKey);
        // filesystem-nio2, not the older filesystem backend: that one does not answer for an
        // empty "directory" Hadoop's S3A created (HEAD dir/ 404, LIST dir/ empty), and Flink's
        // job result store failed at start on it (FileNotFoundException on its own base path).
        p.setProperty("jclouds.provider", "filesystem-nio2");
        p.setProperty("jclouds.filesystem.basedir", dataDir().toString());
        // The backend's own login, which a local directory does not check; S3Proxy requires one.
        p.setProperty("jclouds.identity", "local");
        p.setProperty("jclouds.credential", "local");
        // Created 0600 before the secret is written into it, never widened afterwards.
        Files.deleteIfExists(properties);
        Files.createFile(
                properties, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (Writer w = Files.newBufferedWriter(properties)) {
            p.store(w, "S3Proxy of the e2e node (written by " + S3Server.class.getName() + ")");
        }
    }

    private static void privateDir(Path d) {
        try {
            if (!Files.isDirectory(d)) {
                Files.createDirectory(
                        d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(PRIVATE_DIR)));
            }
            // An earlier run's directory, or a umask that took more than asked: exactly 0700.
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(PRIVATE_DIR));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the private directory " + d, e);
        }
    }
}
