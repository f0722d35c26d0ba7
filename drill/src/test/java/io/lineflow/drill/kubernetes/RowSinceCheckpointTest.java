package io.lineflow.drill.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * When the additive-sink control may strike: readings of the completed checkpoints and the
 * table's rows, one after another, as the drill polls them.
 */
class RowSinceCheckpointTest {
    private final RowSinceCheckpoint since = new RowSinceCheckpoint();

    @Test
    void aRowWrittenAfterTheFirstReadingSinceTheCheckpointIsOne() {
        assertThat(since.observe(5, 100)).as("the baseline").isFalse();
        assertThat(since.observe(5, 100)).isFalse();
        assertThat(since.observe(5, 101)).isTrue();
        assertThat(since.checkpoint()).isEqualTo(5);
    }

    @Test
    void aNewCheckpointStartsOverSoRowsItCoversDoNotCount() {
        assertThat(since.observe(5, 100)).isFalse();
        assertThat(since.observe(6, 101)).as("the row may be in checkpoint 6").isFalse();
        assertThat(since.observe(6, 101)).isFalse();
        assertThat(since.observe(6, 102)).isTrue();
        assertThat(since.checkpoint()).isEqualTo(6);
    }

    @Test
    void nothingIsARowSinceACheckpointBeforeTheJobManagerNamesOne() {
        assertThat(since.observe(-1, 100)).isFalse();
        assertThat(since.observe(-1, 150)).isFalse();
        assertThat(since.checkpoint()).isEqualTo(-1);
        assertThat(since.observe(0, 150))
                .as("no checkpoint completed yet is a baseline too")
                .isFalse();
        assertThat(since.observe(0, 151)).isTrue();
    }

    @Test
    void aTableThatCouldNotBeReadIsNoRowWritten() {
        assertThat(since.observe(5, 100)).isFalse();
        assertThat(since.observe(5, -1)).isFalse();
        assertThat(since.observe(5, 100)).isFalse();
        assertThat(since.observe(5, 101)).isTrue();
    }

    @Test
    void aTableThatCouldNotBeReadIsNoBaseline() {
        assertThat(since.observe(5, -1)).isFalse();
        assertThat(since.observe(5, 100))
                .as("100 rows are more than an unread count, but none need be new")
                .isFalse();
        assertThat(since.observe(5, 101)).isTrue();
    }
}
