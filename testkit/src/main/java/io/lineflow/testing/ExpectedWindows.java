package io.lineflow.testing;

import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The table the job must write for a test's or a drill's input: the rules module's recount
 * ({@link WindowRecount}), the same oracle the audit uses, keyed as {@code WindowTable.read} keys
 * the table. The recount reads the records with the job's parser and applies the dedup, lateness,
 * line and carry rules; {@code RecountDifferentialTest} holds it to the job on random input.
 */
public final class ExpectedWindows {
    private ExpectedWindows() {}

    /**
     * The table once every record of {@code input} is read and the input has ended: a bounded run,
     * or a running job whose idle-emit has written its last windows.
     */
    public static Map<String, Row> toEnd(DeterministicInput input, Rules rules) {
        return WindowRecount.recountToEnd(inputs(input, System.currentTimeMillis()), rules)
                .rows();
    }

    /** The windows the partitions' watermarks have closed once {@code records} are read. */
    public static Map<String, Row> closed(List<WindowRecount.Input> records, Rules rules) {
        return WindowRecount.recount(records, rules).rows();
    }

    /**
     * The input's records as the recount takes them, in the order the job reads them, each with
     * {@code kafkaTimestamp} for its Kafka timestamp (the recount's processing time).
     */
    public static List<WindowRecount.Input> inputs(DeterministicInput input, long kafkaTimestamp) {
        List<WindowRecount.Input> out = new ArrayList<>(input.records.size());
        for (DeterministicInput.Record r : input.records) {
            out.add(new WindowRecount.Input(
                    r.partition, kafkaTimestamp, r.key.getBytes(StandardCharsets.UTF_8), r.value));
        }
        return out;
    }
}
