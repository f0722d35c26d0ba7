package io.lineflow.reconciler.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Serves /metrics, /healthz and /readyz on the JDK's built-in HTTP server. */
public final class HealthServer implements AutoCloseable {

    private final HttpServer server;

    public HealthServer(int port, Supplier<String> metrics, BooleanSupplier live, BooleanSupplier ready)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        server.createContext("/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4", metrics.get()));
        server.createContext("/healthz", ex -> probe(ex, live.getAsBoolean()));
        server.createContext("/readyz", ex -> probe(ex, ready.getAsBoolean()));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void probe(HttpExchange ex, boolean ok) throws IOException {
        respond(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ok\n");
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
