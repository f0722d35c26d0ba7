package io.lineflow.drill.soak;

import io.lineflow.drill.core.TableCheck;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.recount.WindowRecount;
import io.lineflow.rules.recount.WindowRecount.Row;
import io.lineflow.testing.DeterministicInput;
import io.lineflow.testing.ExpectedWindows;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The soak's input, a window at a time, and the table it must give: the drill's {@link
 * DeterministicInput} without end, produced slice by slice so that an hour of it is never held,
 * and its expected rows recounted as it goes by the same recount the drill judges with ({@link
 * TableCheck#expected}). A window's rows depend on the window before it (a stop carried over) and
 * are closed by the window after it, so each window is recounted with its two neighbours.
 */
public final class SoakInput {
    private final int devices;
    private final int pieces;
    private final long windowMillis;
    private final long start;
    private final int partitions;
    private final Deque<DeterministicInput> recent = new ArrayDeque<>();
    private final Map<String, Row> expected = new TreeMap<>();
    private final Map<RejectReason, Long> rejections = new EnumMap<>(RejectReason.class);
    private int produced;
    private boolean ended;

    /** @param start the start of window 0 (epoch ms, a multiple of {@code windowMillis}) */
    public SoakInput(int devices, int pieces, long windowMillis, long start, int partitions) {
        this.devices = devices;
        this.pieces = pieces;
        this.windowMillis = windowMillis;
        this.start = start;
        this.partitions = partitions;
    }

    /** The next window's records, to be produced in order; its neighbour's rows become expected. */
    public synchronized DeterministicInput next() {
        if (ended) {
            throw new IllegalStateException("the input has ended");
        }
        DeterministicInput slice = DeterministicInput.generate(
                devices, produced, produced + 1, Integer.MAX_VALUE, pieces, windowMillis, start, partitions);
        slice.rejections.forEach((reason, n) -> rejections.merge(reason, n, Long::sum));
        recent.addLast(slice);
        if (recent.size() > 3) {
            recent.removeFirst();
        }
        produced++;
        // Window produced - 2 is closed by this one and has the one before it for its carry.
        keep(recount(recent), windowStart(produced - 2), windowStart(produced - 2));
        return slice;
    }

    /**
     * The end of the input: one record per partition past the last window, so that every window
     * closes (the drill's watermark ticks). Returns those records, to be produced last.
     */
    public synchronized DeterministicInput end() {
        DeterministicInput ticks = DeterministicInput.generate(
                devices, produced, produced, Integer.MAX_VALUE, pieces, windowMillis, start, partitions);
        ticks.addWatermarkTicks(windowStart(produced + 1) + windowMillis / 2);
        List<DeterministicInput> all = new ArrayList<>(recent);
        all.add(ticks);
        // Every window from the last closed one on, including the one the last stop ends in.
        keep(recount(all), windowStart(produced - 1), Long.MAX_VALUE);
        ended = true;
        return ticks;
    }

    /** Windows produced so far. */
    public synchronized int produced() {
        return produced;
    }

    /** Windows whose expected rows are final: all produced but the last one (all once ended). */
    public synchronized int closed() {
        return ended ? produced : Math.max(0, produced - 1);
    }

    public long windowStart(int window) {
        return start + window * windowMillis;
    }

    /** The expected rows of windows {@code [0, window)}. */
    public synchronized Map<String, Row> expectedBefore(int window) {
        long before = windowStart(window);
        Map<String, Row> out = new TreeMap<>();
        expected.forEach((k, r) -> {
            if (r.windowStart() < before) {
                out.put(k, r);
            }
        });
        return out;
    }

    /** Both tables as they must be once the ended input is read. */
    public synchronized TableCheck.Expectation expectation() {
        if (!ended) {
            throw new IllegalStateException("the whole table is known only once the input has ended");
        }
        return new TableCheck.Expectation(expected, rejections);
    }

    private static Map<String, Row> recount(Iterable<DeterministicInput> slices) {
        long now = System.currentTimeMillis();
        List<WindowRecount.Input> in = new ArrayList<>();
        for (DeterministicInput s : slices) {
            in.addAll(ExpectedWindows.inputs(s, now));
        }
        return TableCheck.expected(in);
    }

    private void keep(Map<String, Row> rows, long from, long to) {
        rows.forEach((k, r) -> {
            if (r.windowStart() >= from && r.windowStart() <= to) {
                expected.put(k, r);
            }
        });
    }
}
