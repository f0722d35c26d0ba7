package io.lineflow.drill.kubernetes;

import io.lineflow.drill.core.Services;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The Kafka, PostgreSQL and S3 server on the host that the job in the cluster uses, stopped and
 * started through the control port of {@code KubernetesE2e services}.
 */
final class HttpServices implements Services {
    private final URI services;
    private final HttpClient http = HttpClient.newHttpClient();

    HttpServices(URI services) {
        this.services = services;
    }

    @Override
    public void stopPostgres() throws IOException, InterruptedException {
        post("postgres/stop");
    }

    @Override
    public void startPostgres() throws IOException, InterruptedException {
        post("postgres/start");
    }

    @Override
    public void restartKafka() throws IOException, InterruptedException {
        post("kafka/restart");
    }

    @Override
    public void stopS3() throws IOException, InterruptedException {
        post("s3/stop");
    }

    @Override
    public void startS3() throws IOException, InterruptedException {
        post("s3/start");
    }

    private void post(String action) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(services.resolve("/" + action))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofMinutes(3))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("services " + action + ": HTTP " + r.statusCode() + " " + r.body());
        }
    }
}
