package io.lineflow.drill;

import io.lineflow.testing.EmbeddedKafka;

import java.nio.file.Path;

/** The drill's Kafka broker as a process of its own: {@code <data dir> <port>}, until killed. */
public final class KafkaBrokerMain {
    private KafkaBrokerMain() {}

    public static void main(String[] args) throws InterruptedException {
        EmbeddedKafka kafka = EmbeddedKafka.start(Path.of(args[0]), Integer.parseInt(args[1]));
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close));
        System.out.println("kafka broker ready on " + kafka.bootstrapServers());
        Thread.currentThread().join();
    }
}
