package io.lineflow.drill.kubernetes;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a pod answers over HTTP on its IP (a JobManager's REST API, the reconciler's scrape
 * endpoint), served on 127.0.0.1: a canned status and body per path, 404 for the rest, and every
 * path asked recorded.
 */
final class TestingHttpServer implements AutoCloseable {
    private record Answer(int status, String body) {}

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();

    TestingHttpServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath();
            asked.add(path);
            Answer a = answers.getOrDefault(path, new Answer(404, "{\"errors\":[\"Not found: " + path + "\"]}"));
            byte[] bytes = a.body().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(a.status(), bytes.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(bytes);
            }
        });
        server.start();
    }

    /** Answers {@code path} with 200 and {@code body}. */
    TestingHttpServer on(String path, String body) {
        return on(path, 200, body);
    }

    TestingHttpServer on(String path, int status, String body) {
        answers.put(path, new Answer(status, body));
        return this;
    }

    /** The base address, as a pod's would be {@code http://<pod IP>:<port>}. */
    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The paths asked so far, in order. */
    List<String> asked() {
        return List.copyOf(asked);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
