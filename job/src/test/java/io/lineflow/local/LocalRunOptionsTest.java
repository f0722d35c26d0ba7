package io.lineflow.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code make run}'s options: a typo is refused with the known options, never ignored. */
class LocalRunOptionsTest {
    @Test
    void knownOptionsOverrideTheDefaults() {
        assertThat(LocalRun.options(new String[] {"--devices", "30", "--duration", "2 min", "--window", "1 min"}))
                .containsEntry("devices", "30")
                .containsEntry("duration", "2 min")
                .containsEntry("window", "1 min")
                .containsEntry("partitions", "4");
    }

    @Test
    void aMisspeltOptionIsAnErrorThatListsTheKnownOnes() {
        assertThatThrownBy(() -> LocalRun.options(new String[] {"--device", "30"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--device")
                .hasMessageContaining("--devices, ");
        // An abbreviation is not taken for the option it abbreviates.
        assertThatThrownBy(() -> LocalRun.options(new String[] {"--dev", "30"}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anOptionWithoutAValueOrABadDurationIsAnError() {
        assertThatThrownBy(() -> LocalRun.options(new String[] {"--devices"}))
                .hasMessageContaining("Missing argument for option: devices");
        assertThatThrownBy(() -> LocalRun.options(new String[] {"--duration", "two minutes"}))
                .hasMessageContaining("--duration two minutes");
        assertThat(LocalRun.options(new String[] {"--duration", "90s"})).containsEntry("duration", "90s");
    }
}
