package io.lineflow.testing;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/** A combined KRaft broker and controller of Kafka 4.x, the broker of this line's connector's clients. */
final class RaftServers {
    private RaftServers() {}

    static KafkaRaftServer create(KafkaConfig config) {
        return new KafkaRaftServer(config, Time.SYSTEM);
    }
}
