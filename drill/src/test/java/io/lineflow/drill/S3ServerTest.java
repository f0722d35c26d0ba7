package io.lineflow.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.testing.EmbeddedKafka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The e2e node's S3 server started exactly as {@code KubernetesE2e services} starts it, from
 * S3Proxy's own classpath ({@code drill/s3-server/pom.xml}, resolved before the tests), on
 * loopback: it serves the bucket to the key only, and a stop and a start keep the data.
 */
class S3ServerTest {
    private static final String BUCKET = "lineflow-e2e";
    private static final String ACCESS_KEY = "drill-" + UUID.randomUUID();
    private static final String SECRET_KEY = UUID.randomUUID().toString();

    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private static String s3proxyClasspath() {
        String file = System.getProperty("drill.s3.classpath.file");
        assertThat(file)
                .as("system property drill.s3.classpath.file (set by drill/pom.xml's surefire configuration)")
                .isNotNull();
        return S3Server.classpath(Path.of(file));
    }

    private S3Server server(int port) throws IOException {
        return new S3Server(dir.resolve("s3"), "127.0.0.1", port, s3proxyClasspath(), BUCKET, ACCESS_KEY, SECRET_KEY);
    }

    @Test
    void servesTheBucketToTheKeyOnlyAndKeepsItsDataAcrossAStopAndAStart() throws Exception {
        int port = EmbeddedKafka.freePort();
        try (S3Server s3 = server(port)) {
            assertThat(PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(dir.resolve("s3/s3proxy.properties"))))
                    .as("the properties file holds the secret key")
                    .isEqualTo("rw-------");
            s3.start();
            assertThat(s3.bucketDir()).isDirectory();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(s3.bucketDir())))
                    .isEqualTo("rwx------");
            assertThat(Files.readString(Path.of("/proc/" + s3.pid() + "/status")))
                    .as("S3Proxy's umask: objects it writes are private files")
                    .containsPattern("(?m)^Umask:\\s+0077$");

            assertThat(unsigned(s3, "GET", "/" + BUCKET).statusCode()).isEqualTo(403);
            assertThat(signed(s3, "PUT", "/" + BUCKET + "/checkpoints/chk-1/_metadata", "state", SECRET_KEY)
                            .statusCode())
                    .isEqualTo(200);
            assertThat(signed(s3, "GET", "/" + BUCKET + "/checkpoints/chk-1/_metadata", null, "not-the-key")
                            .statusCode())
                    .isEqualTo(403);
            Path object = s3.bucketDir().resolve("checkpoints/chk-1/_metadata");
            assertThat(object).hasContent("state");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(object)))
                    .isEqualTo("rw-------");
            assertThat(unsigned(s3, "GET", "/" + BUCKET + "/checkpoints/chk-1/_metadata")
                            .statusCode())
                    .isEqualTo(403);

            s3.stop();
            assertThatThrownBy(() -> {
                        try (Socket s = new Socket()) {
                            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                        }
                    })
                    .as("nothing listens on the port once stop returns")
                    .isInstanceOf(ConnectException.class);
            assertThatThrownBy(s3::stop).hasMessageContaining("not running");

            s3.start();
            HttpResponse<String> list = signed(s3, "GET", "/" + BUCKET, null, SECRET_KEY);
            assertThat(list.statusCode()).isEqualTo(200);
            assertThat(list.body()).contains("<Key>checkpoints/chk-1/_metadata</Key>");
            HttpResponse<String> get =
                    signed(s3, "GET", "/" + BUCKET + "/checkpoints/chk-1/_metadata", null, SECRET_KEY);
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo("state");
            assertThat(s3.log()).content().contains("Started ServerConnector").doesNotContain(SECRET_KEY);
        }
    }

    @Test
    void refusesToStartWhereAnotherServerListens() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                S3Server s3 = server(taken.getLocalPort())) {
            // An earlier run's S3 server there would answer the readiness probe in its place.
            assertThatThrownBy(s3::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("listens on 127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void aMissingClasspathFileSaysHowToMakeIt() {
        assertThatThrownBy(() -> S3Server.classpath(dir.resolve("s3proxy.classpath")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mvn -f drill/s3-server/pom.xml dependency:build-classpath");
    }

    private HttpResponse<String> unsigned(S3Server s3, String method, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(s3.endpoint() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A request signed as an S3 client signs it with AWS signature version 2 (which S3Proxy
     * accepts beside v4): HMAC-SHA1 of the method, the {@code x-amz-date} header and the path.
     */
    private HttpResponse<String> signed(S3Server s3, String method, String path, String body, String secretKey)
            throws Exception {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        String toSign = method + "\n\n\n\nx-amz-date:" + date + "\n" + path;
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        String signature = Base64.getEncoder().encodeToString(mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
        return http.send(
                HttpRequest.newBuilder(URI.create(s3.endpoint() + path))
                        .header("x-amz-date", date)
                        .header("Authorization", "AWS " + ACCESS_KEY + ":" + signature)
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
