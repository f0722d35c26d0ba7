package io.lineflow.testing;

import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.rules.Rules;
import io.lineflow.rules.recount.WindowRecount;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table the job must write for an input, in the tests' and the drills' terms: the rules
 * module's recount ({@link WindowRecount}), the same oracle the audit uses, with its rows as the
 * job's {@link DeviceWindowStats} keyed by {@link WindowTable#key}. The recount reads the records
 * with the job's parser and applies the dedup, lateness, line and carry rules; {@code
 * RecountDifferentialTest} holds it to the job on random input.
 */
public final class ExpectedWindows {
    private ExpectedWindows() {}

    /**
     * The table once every record of {@code input} is read and the input has ended: a bounded run,
     * or a running job whose idle-emit has written its last windows.
     */
    public static Map<String, DeviceWindowStats> toEnd(DeterministicInput input, Rules rules) {
        return table(WindowRecount.recountToEnd(inputs(input, System.currentTimeMillis()), rules), rules);
    }

    /** The windows the partitions' watermarks have closed once {@code records} are read. */
    public static Map<String, DeviceWindowStats> closed(List<WindowRecount.Input> records, Rules rules) {
        return table(WindowRecount.recount(records, rules), rules);
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

    private static Map<String, DeviceWindowStats> table(WindowRecount.Result result, Rules rules) {
        Map<String, DeviceWindowStats> table = new TreeMap<>();
        for (WindowRecount.Row r : result.rows().values()) {
            DeviceWindowStats row = new DeviceWindowStats();
            row.deviceId = r.deviceId();
            row.lineId = r.lineId();
            row.windowStart = r.windowStart();
            row.windowEnd = r.windowStart() + rules.windowMillis();
            row.piecesProduced = r.pieces();
            row.downtimeCount = r.downtimeCount();
            row.downtimeMillis = r.downtimeMillis();
            row.eventsSeen = r.events();
            row.firstEventTs = r.firstTs();
            row.lastEventTs = r.lastTs();
            table.put(WindowTable.key(r.deviceId(), r.windowStart()), row);
        }
        return table;
    }
}
