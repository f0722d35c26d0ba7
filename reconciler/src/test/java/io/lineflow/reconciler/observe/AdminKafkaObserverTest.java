package io.lineflow.reconciler.observe;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;

/** The Admin client's settings, read as Kafka reads them, without a broker. */
class AdminKafkaObserverTest {

    @ParameterizedTest
    @EnumSource(SecurityProtocol.class)
    void adminPropertiesCarryTheSecurityProtocolAsKafkaParsesIt(SecurityProtocol protocol) {
        // AdminClientConfig validates as Admin.create does: a value of the wrong type would throw here.
        AdminClientConfig config = new AdminClientConfig(
                AdminKafkaObserver.adminProperties("broker:9093", Duration.ofSeconds(5), protocol));

        assertThat(config.getString(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG))
                .isEqualTo(protocol.name);
        assertThat(config.getList(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)).containsExactly("broker:9093");
    }
}
