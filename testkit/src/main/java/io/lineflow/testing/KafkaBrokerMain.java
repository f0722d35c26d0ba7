package io.lineflow.testing;

import java.nio.file.Path;

/**
 * An {@link EmbeddedKafka} broker as a process of its own, {@code <data dir> <port>}, until
 * stopped: the drill's broker, and the benchmark's, whose CPU must not count as the job's.
 */
public final class KafkaBrokerMain {
    /** What the broker prints once it takes clients. */
    public static final String READY = "kafka broker ready";

    private KafkaBrokerMain() {}

    public static void main(String[] args) throws InterruptedException {
        EmbeddedKafka kafka = EmbeddedKafka.start(Path.of(args[0]), Integer.parseInt(args[1]));
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close));
        System.out.println(READY + " on " + kafka.bootstrapServers());
        Thread.currentThread().join();
    }
}
