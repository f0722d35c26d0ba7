package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lineflow.drill.core.Backend;
import io.lineflow.drill.core.Fault;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

/** The soak's options: defaults, values read, and bad values failing with the key, the value and what is allowed. */
class SoakOptionsTest {
    @Test
    void defaultsAreAnHourAFaultEveryFiveMinutesThroughEveryLocalFaultThatKeepsTheFlinkLine() {
        SoakOptions o = SoakOptions.parse(List.of());
        assertThat(o.duration()).isEqualTo(Duration.ofHours(1));
        assertThat(o.faultEvery()).isEqualTo(Duration.ofMinutes(5));
        assertThat(o.rate()).isEqualTo(SoakOptions.DEFAULT_RATE);
        assertThat(o.faults())
                .containsExactlyInAnyOrderElementsOf(Fault.on(Backend.Kind.LOCAL).stream()
                        .filter(f -> !f.changesFlinkLine())
                        .toList());
        assertThat(o.trendSpan()).isEqualTo(Duration.ofMinutes(40));
    }

    @Test
    void readsEveryOption() {
        SoakOptions o = SoakOptions.parse(List.of(
                "--duration",
                "5 min",
                "--rate",
                "4,000",
                "--fault-every",
                "75 s",
                "--faults",
                "pg-kill,partition-jm",
                "--recovery-limit",
                "90 s"));
        assertThat(o.duration()).isEqualTo(Duration.ofMinutes(5));
        assertThat(o.rate()).isEqualTo(4000);
        assertThat(o.faultEvery()).isEqualTo(Duration.ofSeconds(75));
        assertThat(o.faults()).containsExactly(Fault.PG_KILL, Fault.PARTITION_JM);
        assertThat(o.recoveryLimit()).isEqualTo(Duration.ofSeconds(90));
        assertThat(o.trendSpan())
                .isEqualTo(Duration.ofMinutes(5).multipliedBy(2).dividedBy(3));
        assertThat(o.devices(Duration.ofSeconds(1))).isEqualTo(40);
    }

    @Test
    void aRateOutsideTheRangeNamesTheOptionTheValueAndTheRange() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--rate", "fast")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rate fast")
                .hasMessageContaining("from 400")
                .hasMessageContaining("to 400000");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--rate", "100"))).hasMessageContaining("--rate 100");
    }

    @Test
    void aDurationOutsideTheRangeOrNotADurationFails() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--duration", "30 s")))
                .hasMessageContaining("--duration 30 s")
                .hasMessageContaining("allowed from 120 s to 86400 s");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--duration", "soon")))
                .hasMessageContaining("--duration soon");
    }

    @Test
    void anUnknownFaultListsTheKnownOnes() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--faults", "tm-kill,meteor")))
                .hasMessageContaining("--faults tm-kill,meteor")
                .hasMessageContaining("'meteor'")
                .hasMessageContaining("partition-db");
    }

    @Test
    void faultsTooRareToStrikeFailUnlessNoneAreAsked() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--duration", "5 min", "--fault-every", "3 min")))
                .hasMessageContaining("--fault-every 180 s")
                .hasMessageContaining("at most half the duration");
        assertThat(SoakOptions.parse(List.of("--duration", "5 min", "--fault-every", "3 min", "--faults", "none"))
                        .faults())
                .isEmpty();
    }

    @Test
    void anUnknownOrAbbreviatedOptionFails() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--dur", "5 min")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--duration");
    }
}
