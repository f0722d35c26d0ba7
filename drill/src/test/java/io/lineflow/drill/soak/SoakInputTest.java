package io.lineflow.drill.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.drill.core.TableCheck;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** The soak's input, recounted a window at a time, expects what the whole input recounted at once gives. */
class SoakInputTest {
    private static final long WINDOW = TableCheck.WINDOW;

    @Test
    void windowByWindowExpectsWhatTheWholeInputGives() {
        SoakInput soak = new SoakInput(6, 5, WINDOW, TableCheck.T0, 4);
        List<DeterministicInput.Record> sent = new ArrayList<>();
        for (int w = 0; w < 9; w++) {
            sent.addAll(soak.next().records);
        }
        assertThat(soak.closed()).isEqualTo(8);
        sent.addAll(soak.end().records);

        // The same records as one input, recounted at once.
        DeterministicInput whole = DeterministicInput.generate(6, 0, 9, Integer.MAX_VALUE, 5, WINDOW, TableCheck.T0, 4);
        whole.addWatermarkTicks(TableCheck.T0 + 10 * WINDOW + WINDOW / 2);
        assertThat(sent.stream().map(r -> new String(r.value)).toList())
                .containsExactlyElementsOf(
                        whole.records.stream().map(r -> new String(r.value)).toList());
        var once = TableCheck.expected(ExpectedWindows.inputs(whole, System.currentTimeMillis()));

        assertThat(soak.expectation().windows()).isEqualTo(once);
        assertThat(soak.expectation().rejections()).isEqualTo(whole.rejections);
        assertThat(soak.expectedBefore(4))
                .hasSize(6 * 4)
                .allSatisfy((k, r) -> assertThat(r.windowStart()).isLessThan(TableCheck.T0 + 4 * WINDOW));
    }
}
