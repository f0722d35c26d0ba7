package io.lineflow.drill;

import io.lineflow.drill.core.Await;
import io.lineflow.testing.ManagedProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * S3Proxy on its transient (in-memory) backend, as a child process of its own: the S3-compatible
 * store of the e2e node, for Flink's checkpoints, savepoints and HA metadata. It runs from
 * S3Proxy's own classpath ({@code drill/s3-server/pom.xml}), never the drill's, listens on
 * {@code host} only and accepts only requests signed with the one access key (AWS v2 or v4);
 * {@link #start} waits for an unsigned request to be refused (HTTP 403), then creates the bucket.
 *
 * <p>In memory, because both of S3Proxy's filesystem backends keep "directories" as real
 * directories, and Hadoop's S3A, which Flink's S3 file system is, then failed Flink: with
 * {@code filesystem} an empty directory S3A had created was not found (the job result store failed
 * at the first start), with {@code filesystem-nio2} a directory answered as a file (every new
 * JobManager leader failed on it). The transient backend keeps keys as keys, as S3 does. So an
 * outage ({@link #stop}) freezes the process (SIGSTOP: connections are accepted and never
 * answered, as with a hung server) and {@link #start} again lets it go on with the same data.
 */
public final class S3Server implements AutoCloseable {
    private static final Pattern KEY = Pattern.compile("<Key>([^<]*)</Key>");

    /** S3Proxy's entry point. */
    static final String MAIN = "org.gaul.s3proxy.Main";

    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    private static final Duration POLL = Duration.ofMillis(200);
    /** A frozen process's threads are all stopped within milliseconds; this is the give-up point. */
    private static final Duration STOP_LIMIT = Duration.ofSeconds(10);

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
    private final String accessKey;
    private final String secretKey;
    private ManagedProcess process;
    private boolean frozen;

    /**
     * Prepares {@code dir}: the properties file (mode 600, it
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
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        Files.createDirectories(this.dir);
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

    public Path log() {
        return log;
    }

    /** The running server's process id; fails when it is not running. */
    public synchronized long pid() {
        return running().pid();
    }

    /**
     * Starts S3Proxy, or lets a frozen one go on ({@link #stop}) with the data it holds. A new
     * process is ready once it refuses an unsigned request, as it must, and has created the
     * bucket; fails if the port is taken, the process exits, it answers anything else or does not
     * answer within 90 s.
     */
    public synchronized void start() {
        if (frozen) {
            signal("CONT");
            frozen = false;
            return;
        }
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
                "umask 077 && exec \"$@\"",
                "s3proxy",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
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
            int created = send(signed("PUT", "/" + bucket, null, accessKey, secretKey))
                    .statusCode();
            if (created != 200) {
                throw new IllegalStateException("S3Proxy on " + endpoint()
                        + " answered the bucket's creation with HTTP " + created + "; see " + log);
            }
        } catch (RuntimeException e) {
            process.stop();
            process = null;
            throw e;
        }
    }

    /**
     * The outage: freezes S3Proxy (SIGSTOP) and returns; it holds its data and answers nothing
     * until {@link #start}.
     */
    public synchronized void stop() {
        long pid = running().pid();
        signal("STOP");
        frozen = true;
        // kill(2) only queues the signal: a thread in a system call stops when it returns from it.
        Await.orFail(
                STOP_LIMIT,
                POLL,
                "every thread of S3Proxy (pid " + pid + ") stopped, as /proc/" + pid + "/task/*/stat says",
                () -> everyThreadStopped(pid));
    }

    /** Whether each thread of process {@code pid} is in state T (stopped), as the kernel reports it. */
    private static boolean everyThreadStopped(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.allMatch(t -> {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    // "tid (comm) S ...": the state follows the last ')' (comm may hold one).
                    return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
                } catch (IOException e) {
                    return true; // a thread that ended meanwhile runs no more
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("listing the threads of S3Proxy (pid " + pid + ")", e);
        }
    }

    /** Every key of the bucket, page after page of S3's list (up to 1000 keys a page). */
    public List<String> keys() {
        List<String> keys = new ArrayList<>();
        String marker = "";
        while (true) {
            String query = marker.isEmpty() ? "" : "?marker=" + URLEncoder.encode(marker, StandardCharsets.UTF_8);
            HttpResponse<String> r = send(signed("GET", "/" + bucket, query, null, accessKey, secretKey));
            if (r.statusCode() != 200) {
                throw new IllegalStateException(
                        "listing bucket " + bucket + ": HTTP " + r.statusCode() + " " + r.body());
            }
            Matcher m = KEY.matcher(r.body());
            while (m.find()) {
                keys.add(m.group(1));
            }
            if (!r.body().contains("<IsTruncated>true</IsTruncated>") || keys.isEmpty()) {
                return keys;
            }
            marker = keys.get(keys.size() - 1);
        }
    }

    HttpRequest signed(String method, String path, String body, String accessKey, String secretKey) {
        return signed(method, path, "", body, accessKey, secretKey);
    }

    /** Signed as S3's v2 scheme asks: HMAC-SHA1 of the method, the date and the path, with {@code secretKey}. */
    private HttpRequest signed(
            String method, String path, String query, String body, String accessKey, String secretKey) {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        String toSign = method + "\n\n\n\nx-amz-date:" + date + "\n" + path;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            String signature = Base64.getEncoder().encodeToString(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
            return HttpRequest.newBuilder(URI.create(endpoint() + path + query))
                    .timeout(Duration.ofSeconds(10))
                    .header("x-amz-date", date)
                    .header("Authorization", "AWS " + accessKey + ":" + signature)
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body))
                    .build();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with HmacSHA1", e);
        }
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("S3 request " + request.method() + " " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: S3 request " + request.uri(), e);
        }
    }

    private void signal(String name) {
        long pid = running().pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + ": "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("kill -" + name + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: kill -" + name + " " + pid, e);
        }
    }

    /** Stops the server if it runs. */
    @Override
    public synchronized void close() {
        if (process != null) {
            if (frozen) {
                signal("CONT");
                frozen = false;
            }
            process.stop();
            process = null;
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
        // In memory: see the class comment for why not on the filesystem.
        p.setProperty("jclouds.provider", "transient");
        // Created 0600 before the secret is written into it, never widened afterwards.
        Files.deleteIfExists(properties);
        Files.createFile(
                properties, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (Writer w = Files.newBufferedWriter(properties)) {
            p.store(w, "S3Proxy of the e2e node (written by " + S3Server.class.getName() + ")");
        }
    }
}
