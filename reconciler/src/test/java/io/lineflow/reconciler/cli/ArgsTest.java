package io.lineflow.reconciler.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.Set;

/** The subcommands' command line: what is declared is read, anything else is refused. */
class ArgsTest {
    private static Args parse(String... argv) {
        return Args.parse(argv, Set.of("bootstrap", "output"), Set.of("no-kafka"));
    }

    @Test
    void readsOptionsFlagsSettingsAndPositionals() {
        Args a = parse("--bootstrap", "k:9092", "--no-kafka", "--set", "a.b=1", "--set", "c=x=y", "file.yaml", "-");
        assertThat(a.require("bootstrap")).isEqualTo("k:9092");
        assertThat(a.flag("no-kafka")).isTrue();
        assertThat(a.get("output", "table")).isEqualTo("table");
        assertThat(a.settings()).containsExactly(java.util.Map.entry("a.b", "1"), java.util.Map.entry("c", "x=y"));
        assertThat(a.positionals).containsExactly("file.yaml", "-");
    }

    @Test
    void aMisspeltOrAbbreviatedOptionIsAnError() {
        assertThatThrownBy(() -> parse("--bootstap", "k:9092"))
                .isInstanceOf(Args.UsageException.class)
                .hasMessageContaining("--bootstap");
        assertThatThrownBy(() -> parse("--boot", "k:9092"))
                .isInstanceOf(Args.UsageException.class)
                .hasMessageContaining("--boot");
    }

    @Test
    void anOptionWithoutItsValueOrASettingWithoutKeyIsAnError() {
        assertThatThrownBy(() -> parse("--bootstrap")).isInstanceOf(Args.UsageException.class);
        assertThatThrownBy(() -> parse("--set", "novalue"))
                .isInstanceOf(Args.UsageException.class)
                .hasMessageContaining("key=value");
        assertThatThrownBy(() -> parse().require("bootstrap")).hasMessageContaining("--bootstrap is required");
    }
}
