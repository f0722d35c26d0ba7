package io.lineflow.reconciler.checks;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

/** Settings are read as Flink reads them: current key first, then the older keys it still takes. */
class FlinkConfTest {
    @Test
    void anOlderKeyFlinkStillAcceptsIsReadAndNamedAsEvidence() {
        FlinkConf c = new FlinkConf(Map.of("state.checkpoints.dir", " s3://b/checkpoints "));
        assertThat(c.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).contains("s3://b/checkpoints");
        assertThat(c.keyOf(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEqualTo("state.checkpoints.dir");
    }

    @Test
    void theCurrentKeyWinsOverAnOlderOne() {
        FlinkConf c = new FlinkConf(Map.of(
                "execution.checkpointing.dir", "s3://new",
                "state.checkpoints.dir", "s3://old"));
        assertThat(c.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).contains("s3://new");
        assertThat(c.keyOf(CheckpointingOptions.CHECKPOINTS_DIRECTORY)).isEqualTo("execution.checkpointing.dir");
    }

    @Test
    void onlyKeysFlinkKnowsCount() {
        // Flink's older key for the HA storage directory is high-availability.zookeeper.storageDir;
        // a key list of our own once listed "high-availability.storage-dir", which Flink ignores.
        assertThat(new FlinkConf(Map.of("high-availability.zookeeper.storageDir", "s3://ha"))
                        .get(HighAvailabilityOptions.HA_STORAGE_PATH))
                .contains("s3://ha");
        assertThat(new FlinkConf(Map.of("high-availability.storage-dir", "s3://ha"))
                        .get(HighAvailabilityOptions.HA_STORAGE_PATH))
                .isEmpty();
    }

    @Test
    void typedValuesUseFlinksSyntaxAndDefaults() {
        FlinkConf c = new FlinkConf(Map.of(
                "execution.checkpointing.interval", "90 s",
                "execution.checkpointing.timeout", "ten minutes",
                "execution.checkpointing.tolerable-failed-checkpoints", " "));
        assertThat(c.value(CheckpointingOptions.CHECKPOINTING_INTERVAL)).contains(Duration.ofSeconds(90));
        assertThat(c.value(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEmpty();
        assertThat(c.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).contains("ten minutes");
        assertThat(c.valueOrDefault(CheckpointingOptions.CHECKPOINTING_TIMEOUT)).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.value(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER)).isEmpty();
        assertThat(c.valueOrDefault(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER))
                .isZero();
    }
}
