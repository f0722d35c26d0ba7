package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/**
 * When the additive-sink control may strike: readings of the completed checkpoints and the
 * table's rows, one after another, as the drill polls them.
 */
class RowSinceCheckpointTest {
    private final RowSinceCheckpoint since = new RowSinceCheckpoint();

    /** One reading: checkpoints completed and rows in the table, -1 for either not read. */
    private record Reading(long checkpoints, long rows) {}

    private static Reading r(long checkpoints, long rows) {
        return new Reading(checkpoints, rows);
    }

    /** What the rule answers to each of {@code readings} in turn. */
    private List<Boolean> answers(Reading... readings) {
        List<Boolean> out = new ArrayList<>();
        for (Reading r : readings) {
            out.add(since.observe(r.checkpoints(), r.rows()));
        }
        return out;
    }

    @Test
    void aRowWrittenAfterTheFirstReadingSinceTheCheckpointIsOne() {
        assertThat(answers(r(5, 100), r(5, 100), r(5, 101))).containsExactly(false, false, true);
        assertThat(since.checkpoint()).isEqualTo(5);
    }

    @Test
    void aNewCheckpointStartsOverSoRowsItCoversDoNotCount() {
        assertThat(answers(r(5, 100), r(6, 101), r(6, 101), r(6, 102)))
                .as("the row of the second reading may be in checkpoint 6")
                .containsExactly(false, false, false, true);
        assertThat(since.checkpoint()).isEqualTo(6);
    }

    @Test
    void nothingIsARowSinceACheckpointBeforeTheJobManagerNamesOne() {
        assertThat(answers(r(-1, 100), r(-1, 150))).containsExactly(false, false);
        assertThat(since.checkpoint()).isEqualTo(-1);
        assertThat(answers(r(0, 150), r(0, 151)))
                .as("no checkpoint completed yet is a baseline too")
                .containsExactly(false, true);
    }

    @Test
    void aTableThatCouldNotBeReadIsNoRowWritten() {
        assertThat(answers(r(5, 100), r(5, -1), r(5, 100), r(5, 101))).containsExactly(false, false, false, true);
    }

    @Test
    void aTableThatCouldNotBeReadIsNoBaseline() {
        assertThat(answers(r(5, -1), r(5, 100), r(5, 101)))
                .as("100 rows are more than an unread count, but none need be new")
                .containsExactly(false, false, true);
    }
}
