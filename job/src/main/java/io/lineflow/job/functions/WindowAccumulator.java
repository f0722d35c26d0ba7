package io.lineflow.job.functions;

import io.lineflow.rules.EventIds;
import io.lineflow.rules.event.EventType;

import java.util.Arrays;

/**
 * Running figures of one device in one window. Pieces and events are plain counters; only the
 * downtime transitions (a handful per window) are kept, because the downtime inside the window
 * depends on their order and on whether a stop was open when the window began.
 */
public class WindowAccumulator {
    public String lineId;
    public long pieces;
    public long events;
    public int downtimeStarts;
    public long firstTs = Long.MAX_VALUE;
    public long lastTs = Long.MIN_VALUE;
    public long[] transitions = new long[0];
    /**
     * Not a figure: the fingerprints ({@link EventIds#fingerprint}) of the event ids counted here,
     * sorted, in {@code ids[0, idCount)}; the dedup rule's memory, dropped with the window.
     */
    public long[] ids = new long[0];

    public int idCount;
    /** Not a figure: the processing time of this window's last event (see {@link CountDeviceWindows}). */
    public long lastSeenAt;
    /**
     * Not a figure: the processing time of this window's pending idle check (see {@link
     * CountDeviceWindows}); 0 for none.
     */
    public long idleCheckAt;

    /** Encodes a transition so that sorting the longs sorts by time, END before START at a tie. */
    public static long transition(long ts, boolean start) {
        return (ts << 1) | (start ? 1L : 0L);
    }

    public static long transitionTime(long transition) {
        return transition >> 1;
    }

    public static boolean isStart(long transition) {
        return (transition & 1L) == 1L;
    }

    /**
     * Remembers an id's fingerprint unless this window has it already.
     *
     * @return false for an id already counted in this window: a repeat
     */
    boolean rememberId(long fingerprint) {
        int at = Arrays.binarySearch(ids, 0, idCount, fingerprint);
        if (at >= 0) {
            return false;
        }
        int pos = -at - 1;
        if (idCount == ids.length) {
            // Grown by half: at most a third of the array is slack, 8-12 bytes per id.
            ids = Arrays.copyOf(ids, Math.max(4, idCount + (idCount >> 1)));
        }
        System.arraycopy(ids, pos, ids, pos + 1, idCount - pos);
        ids[pos] = fingerprint;
        idCount++;
        return true;
    }

    void add(EventType type, long ts, int count) {
        events++;
        firstTs = Math.min(firstTs, ts);
        lastTs = Math.max(lastTs, ts);
        // A switch expression (the pieces the event adds), which javac holds to every constant: a
        // new event type does not compile until it is counted here.
        pieces += switch (type) {
            case PIECE_PRODUCED -> count;
            case DOWNTIME_START -> {
                downtimeStarts++;
                addTransition(transition(ts, true));
                yield 0;
            }
            case DOWNTIME_END -> {
                addTransition(transition(ts, false));
                yield 0;
            }
        };
    }

    private void addTransition(long t) {
        // Kept sorted on insert: a window holds few transitions, and the result needs them in order.
        int at = Arrays.binarySearch(transitions, t);
        int pos = at >= 0 ? at : -at - 1;
        long[] grown = new long[transitions.length + 1];
        System.arraycopy(transitions, 0, grown, 0, pos);
        grown[pos] = t;
        System.arraycopy(transitions, pos, grown, pos + 1, transitions.length - pos);
        transitions = grown;
    }
}
