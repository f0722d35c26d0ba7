package io.lineflow.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** Slices of the deterministic input, as a long run produces it, are the input itself. */
class DeterministicInputTest {
    private static final long WINDOW = 300_000;

    @Test
    void slicesConcatenatedAreTheWholeInput() {
        DeterministicInput whole = DeterministicInput.generate(5, 7, 3, WINDOW, 0, 4);
        List<String> sliced = new ArrayList<>();
        for (int[] s : new int[][] {{0, 2}, {2, 3}, {3, 7}}) {
            DeterministicInput slice = DeterministicInput.generate(5, s[0], s[1], 7, 3, WINDOW, 0, 4);
            slice.records.forEach(r -> sliced.add(r.partition + "/" + r.key + "/" + new String(r.value)));
        }
        assertThat(sliced)
                .containsExactlyElementsOf(whole.records.stream()
                        .map(r -> r.partition + "/" + r.key + "/" + new String(r.value))
                        .toList());
    }

    @Test
    void aSliceOfAnEndlessInputKeepsTheStopThatRunsIntoTheNextWindow() {
        // Window 1 of device 1 is case (1 + 1) % 4 == 2: a stop into window 2, which an input
        // of two windows drops and an endless one keeps.
        long bounded =
                DeterministicInput.generate(2, 1, 2, 2, 3, WINDOW, 0, 4).records.size();
        long endless = DeterministicInput.generate(2, 1, 2, Integer.MAX_VALUE, 3, WINDOW, 0, 4)
                .records
                .size();
        assertThat(endless).isEqualTo(bounded + 2);
    }

    @Test
    void refusesASliceOutsideTheInput() {
        assertThatThrownBy(() -> DeterministicInput.generate(2, 3, 5, 4, 3, WINDOW, 0, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[3, 5)")
                .hasMessageContaining("4");
    }
}
