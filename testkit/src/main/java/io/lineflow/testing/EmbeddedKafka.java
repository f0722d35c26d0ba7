package io.lineflow.testing;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.utils.Exit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

/**
 * A real Kafka broker in this JVM: KRaft, broker and controller in one node, on loopback. The data
 * directory survives {@link #close()}, so a broker restarted on the same directory and port keeps
 * its topics and offsets.
 */
public final class EmbeddedKafka implements AutoCloseable {
    static {
        // Kafka halts the JVM on fatal errors; in tests that would kill the fork without a word.
        Exit.setHaltProcedure((status, message) -> {
            throw new IllegalStateException("Kafka tried to halt(" + status + "): " + message);
        });
        Exit.setExitProcedure((status, message) -> {
            throw new IllegalStateException("Kafka tried to exit(" + status + "): " + message);
        });
    }

    /** How long a new topic may take to be described with a leader for every partition. */
    private static final Duration TOPIC_READY = Duration.ofSeconds(60);

    private final KafkaRaftServer server;
    private final String host;
    private final int port;

    private EmbeddedKafka(KafkaRaftServer server, String host, int port) {
        this.server = server;
        this.host = host;
        this.port = port;
    }

    /** Starts a broker on a free port with its data in {@code dir}. */
    public static EmbeddedKafka start(Path dir) {
        return start(dir, freePort());
    }

    /** Starts a broker on {@code port}; reuses {@code dir} if it holds an earlier broker's data. */
    public static EmbeddedKafka start(Path dir, int port) {
        return start(dir, "127.0.0.1", port);
    }

    /**
     * Starts a broker whose client listener is {@code host:port} (advertised as such), e.g. the
     * address of the end-to-end cluster's bridge so that pods reach it; the controller listener
     * stays on loopback.
     */
    public static EmbeddedKafka start(Path dir, String host, int port) {
        int controllerPort = freePort();
        try {
            Files.createDirectories(dir);
            Path meta = dir.resolve("meta.properties");
            if (!Files.exists(meta)) {
                Files.writeString(meta, "version=1\ncluster.id=" + Uuid.randomUuid() + "\nnode.id=1\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://" + host + ":" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + host + ":" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.toAbsolutePath().toString());
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("log.retention.hours", "-1");
        KafkaRaftServer server = RaftServers.create(new KafkaConfig(p, false));
        server.startup();
        return new EmbeddedKafka(server, host, port);
    }

    public String bootstrapServers() {
        return host + ":" + port;
    }

    /** Creates a topic and waits until every partition has a leader, so producing cannot miss it. */
    public void createTopic(String name, int partitions) {
        createTopic(bootstrapServers(), name, partitions);
    }

    /** {@link #createTopic(String, int)} on the broker at {@code bootstrapServers}. */
    public static void createTopic(String bootstrapServers, String name, int partitions) {
        try (Admin admin = admin(bootstrapServers)) {
            createTopic(admin, name, partitions);
        }
    }

    /**
     * {@link #createTopic(String, int)} on any broker, through {@code admin}. The new topic's
     * metadata reaches the broker's cache a little after {@code createTopics} returns: until then
     * {@code describeTopics} answers with a retriable error (unknown topic, no leader), which is
     * polled through, not failed on.
     */
    public static void createTopic(Admin admin, String name, int partitions) {
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get();
            Await.until(
                    "topic " + name + " to have " + partitions + " partitions, each with a leader",
                    TOPIC_READY,
                    RetriableException.class::isInstance,
                    () -> {
                        List<TopicPartitionInfo> found = admin.describeTopics(List.of(name))
                                .allTopicNames()
                                .get()
                                .get(name)
                                .partitions();
                        return found.size() == partitions
                                && found.stream()
                                        .allMatch(p -> p.leader() != null
                                                && !p.leader().isEmpty());
                    });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topic " + name, e.getCause());
        }
    }

    public Admin admin() {
        return admin(bootstrapServers());
    }

    private static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    /** A port free on loopback right now. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
