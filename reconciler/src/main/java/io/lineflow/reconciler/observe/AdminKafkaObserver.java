package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.KafkaObservation;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.security.auth.SecurityProtocol;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@link KafkaObserver} over Kafka's Admin client, one client per bootstrap address. */
public final class AdminKafkaObserver implements KafkaObserver {

    private final Duration timeout;
    private final SecurityProtocol securityProtocol;
    private final Clock clock;
    private final Map<String, Admin> admins = new ConcurrentHashMap<>();

    public AdminKafkaObserver(Duration timeout, SecurityProtocol securityProtocol, Clock clock) {
        this.timeout = timeout;
        this.securityProtocol = securityProtocol;
        this.clock = clock;
    }

    @Override
    public KafkaObservation observe(String bootstrap, Collection<String> topics, String groupId) {
        try {
            Admin admin = admins.computeIfAbsent(bootstrap, this::create);
            long ms = timeout.toMillis();
            Map<String, TopicDescription> described =
                    admin.describeTopics(topics).allTopicNames().get(ms, TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            described
                    .values()
                    .forEach(d -> d.partitions()
                            .forEach(
                                    p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(latest).all().get(ms, TimeUnit.MILLISECONDS);
            long endSum = ends.values().stream()
                    .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
                    .sum();

            List<ConfigResource> resources = topics.stream()
                    .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                    .toList();
            Map<ConfigResource, Config> configs =
                    admin.describeConfigs(resources).all().get(ms, TimeUnit.MILLISECONDS);
            Duration retention = null;
            for (Config cfg : configs.values()) {
                ConfigEntry entry = cfg.get("retention.ms");
                long r = entry == null || entry.value() == null ? -1 : Long.parseLong(entry.value());
                if (r >= 0 && (retention == null || r < retention.toMillis())) {
                    retention = Duration.ofMillis(r); // the records that go first decide
                }
            }

            Long committedSum = null;
            Long lag = null;
            if (groupId != null && !groupId.isBlank()) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                        .partitionsToOffsetAndMetadata()
                        .get(ms, TimeUnit.MILLISECONDS);
                long c = 0;
                long l = 0;
                boolean any = false;
                for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
                    OffsetAndMetadata om = committed.get(e.getKey());
                    if (om != null) {
                        any = true;
                        c += om.offset();
                        l += Math.max(0, e.getValue().offset() - om.offset());
                    }
                }
                if (any) {
                    committedSum = c;
                    lag = l;
                }
            }
            return KafkaObservation.builder(bootstrap, topics, groupId, clock.instant())
                    .partitions(latest.size())
                    .endOffsetSum(endSum)
                    .committedOffsetSum(committedSum)
                    .lag(lag)
                    .retention(retention)
                    .build();
        } catch (ExecutionException e) {
            return KafkaObservation.failed(bootstrap, topics, groupId, clock.instant(), causeOf(e));
        } catch (TimeoutException e) {
            return KafkaObservation.failed(bootstrap, topics, groupId, clock.instant(), timedOut());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KafkaObservation.failed(bootstrap, topics, groupId, clock.instant(), "interrupted");
        } catch (RuntimeException e) {
            return KafkaObservation.failed(
                    bootstrap, topics, groupId, clock.instant(), e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    @Override
    public Optional<Set<String>> topicNames(String bootstrap) {
        try {
            return Optional.of(admins.computeIfAbsent(bootstrap, this::create)
                    .listTopics()
                    .names()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static String causeOf(ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private String timedOut() {
        return "timed out after " + timeout.toMillis() + " ms";
    }

    private Admin create(String bootstrap) {
        return Admin.create(adminProperties(bootstrap, timeout, securityProtocol));
    }

    /** The Admin client's settings; apart from {@link #create} so that tests need no broker. */
    static Properties adminProperties(String bootstrap, Duration timeout, SecurityProtocol securityProtocol) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "lineflow-reconciler");
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, securityProtocol.name);
        return p;
    }

    @Override
    public void close() {
        admins.values().forEach(a -> a.close(Duration.ofSeconds(2)));
        admins.clear();
    }
}
