package io.lineflow.drill.kubernetes;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a pod answers over HTTP on its IP (a JobManager's REST API, the reconciler's scrape
 * endpoint, Prometheus and the Alertmanager), served on 127.0.0.1: a canned status and body per
 * path, 404 for the rest, and every path asked recorded with its query parameters.
 */
final class TestingHttpServer implements AutoCloseable {
    private record Answer(int status, String body) {}

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final List<Map<String, String>> parameters = new CopyOnWriteArrayList<>();

    TestingHttpServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath();
            asked.add(path);
            parameters.add(decode(ex.getRequestURI().getRawQuery()));
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

    /** The query parameters of every request so far, in order, decoded; a repeated name keeps its last value. */
    List<Map<String, String>> parameters() {
        return List.copyOf(parameters);
    }

    private static Map<String, String> decode(String rawQuery) {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery != null) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                out.put(
                        URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
