package io.lineflow.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.testing.EmbeddedKafka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.UUID;

/**
 * The e2e node's S3 server started exactly as {@code KubernetesE2e services} starts it, from
 * S3Proxy's own classpath ({@code drill/s3-server/pom.xml}, resolved before the tests), on
 * loopback: it serves the bucket to the key only, a stopped server answers nothing, and a start
 * goes on with the same data.
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
            String object = "/" + BUCKET + "/checkpoints/chk-1/_metadata";
            assertThat(unsigned(s3, "GET", "/" + BUCKET).statusCode()).isEqualTo(403);
            assertThat(s3.send(s3.signed("PUT", object, "state", ACCESS_KEY, SECRET_KEY))
                            .statusCode())
                    .as("the bucket start() created takes an object")
                    .isEqualTo(200);
            assertThat(s3.send(s3.signed("GET", object, null, ACCESS_KEY, "not-the-key"))
                            .statusCode())
                    .isEqualTo(403);
            assertThat(unsigned(s3, "GET", object).statusCode()).isEqualTo(403);

            s3.stop();
            HttpRequest whileDown = HttpRequest.newBuilder(
                            s3.signed("GET", object, null, ACCESS_KEY, SECRET_KEY), (n, v) -> true)
                    .timeout(Duration.ofSeconds(2))
                    .build();
            assertThatThrownBy(() -> http.send(whileDown, HttpResponse.BodyHandlers.ofString()))
                    .as("a stopped server answers nothing")
                    .isInstanceOf(HttpTimeoutException.class);

            s3.start();
            HttpResponse<String> list = s3.send(s3.signed("GET", "/" + BUCKET, null, ACCESS_KEY, SECRET_KEY));
            assertThat(list.statusCode()).isEqualTo(200);
            assertThat(list.body()).contains("<Key>checkpoints/chk-1/_metadata</Key>");
            HttpResponse<String> get = s3.send(s3.signed("GET", object, null, ACCESS_KEY, SECRET_KEY));
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).as("the same data after the outage").isEqualTo("state");
            assertThat(s3.keys()).containsExactly("checkpoints/chk-1/_metadata");
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
}
