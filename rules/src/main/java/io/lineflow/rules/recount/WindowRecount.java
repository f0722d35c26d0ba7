package io.lineflow.rules.recount;

import io.lineflow.rules.EventIds;
import io.lineflow.rules.Rules;
import io.lineflow.rules.Windows;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.table.WindowTable;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Recounts lineflow's window table from the raw Kafka records: the audit's second opinion. Pure:
 * records in, rows out.
 *
 * <p>It applies the job's rules as the job applies them, record by record in each partition's
 * order: the parser's (every reason a record is rejected, with the job's limits), lateness, dedup
 * (an event id counted once per device and window, by its {@link EventIds#fingerprint}), the line
 * a row takes (that of the last event counted in it, in arrival
 * order), and the downtime carry (a stop open at a window's end carries into the next window,
 * silent windows included; a late event corrects the carry only while its window is the device's
 * latest). What the job decides by its own clocks is taken from the records, which is exact for a
 * job that keeps up with the topic (and does not model the provisional rows of {@code
 * lineflow.window.idle-emit}, which the watermark's rows overwrite):
 *
 * <ul>
 *   <li>processing time (the future-timestamp limit) is each record's Kafka timestamp: a job far
 *       behind may accept an event this calls future;
 *   <li>the watermark an event meets is its own partition's (the largest event time read before
 *       it, less the out-of-orderness, less 1 ms); the job's is the minimum over partitions, so it
 *       can find an event on time that this calls late, never the reverse (a repeat this calls late
 *       it may call a duplicate: neither is counted).
 * </ul>
 *
 * <p>Only windows closed for every partition are recounted. Records are read by the job's own
 * parser ({@link DeviceEventJson}) and windows are cut by the job's {@link Windows}; the keyed steps
 * are written plainly, one device at a time, unlike the job's state machines, and {@code
 * RecountDifferentialTest} runs random input through the job and through this class and requires
 * the same table.
 */
public final class WindowRecount {
    /** One Kafka record as read, with its Kafka timestamp (epoch ms). */
    public record Input(int partition, long timestamp, byte[] key, byte[] value) {}

    /** One recounted row of {@code device_window_stats}. */
    public record Row(
            String deviceId,
            String lineId,
            long windowStart,
            long pieces,
            int downtimeCount,
            long downtimeMillis,
            long events,
            Long firstTs,
            Long lastTs) {
        /** The row's key in a table's map ({@link WindowTable#key}). */
        public String key() {
            return WindowTable.key(deviceId, windowStart);
        }
    }

    /**
     * The recount: rows of closed windows, keyed {@code device@windowStart}, and what was left out;
     * {@code rejected} by reason, as {@code rejected_events} keeps them.
     */
    public record Result(
            Map<String, Row> rows,
            long closedBefore,
            long counted,
            long invalid,
            long duplicates,
            long late,
            Map<RejectReason, Long> rejected,
            Map<String, Long> carryKnownFrom) {
        /**
         * Whether the downtime carry into the window starting at {@code windowStart} is known for
         * {@code device} (see {@link Counter}): always for a read from the topic's beginning; never
         * for a device the read has no event of.
         */
        public boolean carryKnown(String device, long windowStart) {
            Long from = carryKnownFrom.get(device);
            return from != null && windowStart >= from;
        }
    }

    /** An accepted event with what the job knew when it arrived. */
    private record Arrival(DeviceEvent event, long watermark) {}

    private WindowRecount() {}

    /**
     * The windows the partitions' watermarks have closed, as a running job has written them: what
     * the audit compares with the table.
     */
    public static Result recount(List<Input> records, Rules rules) {
        Counter counter = new Counter(rules, Long.MIN_VALUE);
        records.forEach(counter::add);
        return counter.result(false);
    }

    /**
     * The table once the input has ended, as a bounded run writes it: the watermark passes every
     * window, and a stop still open at a device's last window fills silent windows up to {@link
     * Rules#silentFillMillis}.
     */
    public static Result recountToEnd(List<Input> records, Rules rules) {
        Counter counter = new Counter(rules, Long.MIN_VALUE);
        records.forEach(counter::add);
        return counter.result(true);
    }

    /**
     * The recount fed one record at a time, in each partition's order, so that a long read is not
     * held in memory: what it keeps is each device's open windows (their ids' fingerprints) and the
     * rows written so far, not the records.
     *
     * <p>{@code horizon} is for a read that does not start at the topic's beginning (the audit of a
     * recent span): every window starting at or after it is taken to have all its records in the
     * read, and no state from before the read is known. The only state the job carries from one
     * window to the next that the read cannot rebuild is whether a stop was open (the downtime
     * carry, silent windows included): it is known for a device from the end of its first window at
     * or after the horizon that holds a stop or restart event (its last such event decides it), and
     * {@link Result#carryKnownFrom} says from where. Dedup, lateness and the line need nothing from
     * before the horizon: an id is remembered per device and window, and the events the read misses
     * lie before the horizon in event time, so they cannot make a later window's events late. {@code
     * Long.MIN_VALUE}: the read starts at the topic's beginning and everything is known.
     */
    public static final class Counter {
        private final Rules rules;
        private final long horizon;
        private final DeviceEventJson parser;
        private final Map<RejectReason, Long> rejected = new EnumMap<>(RejectReason.class);
        private final Map<Integer, Long> maxTs = new HashMap<>();
        private final Map<String, Device> devices = new TreeMap<>();
        private long invalid;
        private long read;

        public Counter(Rules rules, long horizon) {
            this.rules = rules;
            this.horizon = horizon;
            this.parser = rules.parser();
        }

        /** Records given so far. */
        public long read() {
            return read;
        }

        /** The next record of its partition. */
        public void add(Input r) {
            read++;
            // The job's parser, with the record's Kafka timestamp for its wall clock.
            ParsedRecord parsed = parser.parse(r.key(), r.value(), null, r.partition(), -1, r.timestamp());
            if (!parsed.isAccepted()) {
                invalid++;
                rejected.merge(parsed.rejected.reason, 1L, Long::sum);
                return;
            }
            DeviceEvent e = parsed.event;
            // Flink's bounded out-of-orderness watermark: the largest time seen, less the bound, less
            // 1 ms. Every accepted record moves it, repeats and late ones included.
            Long max = maxTs.get(r.partition());
            long watermark = max == null ? Long.MIN_VALUE : max - rules.outOfOrdernessMillis() - 1;
            maxTs.merge(r.partition(), e.ts, Math::max);
            devices.computeIfAbsent(e.deviceId, d -> new Device(d, rules, horizon))
                    .process(new Arrival(e, watermark));
        }

        /**
         * The rows of the windows closed by the partitions' watermarks ({@code toEnd}: every window,
         * as a bounded run ends). Call once, after the last record.
         */
        public Result result(boolean toEnd) {
            long closedBefore = toEnd
                    ? Long.MAX_VALUE
                    : maxTs.values().stream()
                            .mapToLong(t -> t - rules.outOfOrdernessMillis() - 1)
                            .min()
                            .orElse(Long.MIN_VALUE);
            Map<String, Row> rows = new TreeMap<>();
            Map<String, Long> knownFrom = new TreeMap<>();
            Map<RejectReason, Long> reasons = new EnumMap<>(rejected);
            long counted = 0;
            long duplicates = 0;
            long late = 0;
            for (Device device : devices.values()) {
                device.advance(closedBefore);
                for (Row row : device.rows.values()) {
                    if (row.windowStart() + rules.windowMillis() - 1 <= closedBefore) {
                        rows.put(row.key(), row);
                    }
                }
                knownFrom.put(device.id, device.carryKnownFrom);
                counted += device.counted;
                duplicates += device.duplicates;
                late += device.late;
            }
            if (duplicates > 0) {
                reasons.put(RejectReason.DUPLICATE, duplicates);
            }
            if (late > 0) {
                reasons.put(RejectReason.LATE, late);
            }
            return new Result(rows, closedBefore, counted, invalid, duplicates, late, reasons, knownFrom);
        }
    }

    /**
     * One device through the job's keyed steps: dedup and windows (CountDeviceWindows), then the
     * downtime carry (CarryDowntime), each window's row as last written.
     */
    private static final class Device {
        private final String id;
        private final Rules rules;
        private final TreeMap<Long, Window> windows = new TreeMap<>();
        private final Map<Long, Boolean> openAtStartByWindow = new HashMap<>();
        private final TreeSet<Long> carryTimers = new TreeSet<>();
        private final Map<Long, Row> rows = new TreeMap<>();
        private long watermark = Long.MIN_VALUE;
        private Carry carry;
        private long counted;
        private long duplicates;
        private long late;
        /** The first window start from which the carry is known ({@link Counter}). */
        private long carryKnownFrom;

        private final long horizon;

        Device(String id, Rules rules, long horizon) {
            this.id = id;
            this.rules = rules;
            this.horizon = horizon;
            this.carryKnownFrom = horizon == Long.MIN_VALUE ? Long.MIN_VALUE : Long.MAX_VALUE;
        }

        void process(Arrival a) {
            advance(a.watermark);
            DeviceEvent e = a.event;
            long start = Windows.start(e.ts, rules.windowMillis());
            long last = start + rules.windowMillis() - 1;
            if (last + rules.latenessMillis() <= watermark) {
                late++;
                return;
            }
            Window w = windows.computeIfAbsent(start, s -> new Window(s, last > watermark));
            // The dedup rule: an id once per device and window, remembered while the window is open.
            if (!w.ids.add(EventIds.fingerprint(e.eventId))) {
                duplicates++;
                return;
            }
            w.add(e);
            counted++;
            if (last <= watermark) {
                // Late but within the allowed lateness: the corrected row is written at once.
                carryRow(w.row());
            }
        }

        /**
         * The watermark passes {@code to}, one timer time after the other: at each, the windows
         * ending there fire first, then the carry's timer (a silent window while a stop is open).
         * The job writes the same rows whatever its watermark's steps (a row that comes after a
         * silent gap gets the gap's rows first), so stepping also stands for a replay or catch-up
         * whose one step passes several window ends.
         */
        void advance(long to) {
            while (true) {
                long next = Long.MAX_VALUE;
                for (Window w : windows.values()) {
                    long last = w.start + rules.windowMillis() - 1;
                    if (w.endTimer && last > watermark) {
                        next = Math.min(next, last);
                    }
                }
                Long timer = carryTimers.higher(watermark);
                if (timer != null) {
                    next = Math.min(next, timer);
                }
                if (next == Long.MAX_VALUE || next > to) {
                    break;
                }
                watermark = next;
                for (Window w : windows.values()) {
                    if (w.endTimer && w.start + rules.windowMillis() - 1 == next) {
                        carryRow(w.row());
                    }
                }
                if (carryTimers.remove(next)
                        && carry != null
                        && carry.openAtEnd
                        && carry.lastWindowEnd + rules.windowMillis() - 1 == next
                        && carry.silentWindows < rules.maxSilentWindows()) {
                    // The device stayed stopped through a window in which it sent nothing.
                    long start = carry.lastWindowEnd;
                    rows.put(start, new Row(id, carry.lineId, start, 0, 0, rules.windowMillis(), 0, null, null));
                    openAtStartByWindow.put(start, true);
                    carry.lastWindowEnd = start + rules.windowMillis();
                    carry.silentWindows++;
                    carryTimers.add(carry.lastWindowEnd + rules.windowMillis() - 1);
                }
            }
            watermark = Math.max(watermark, to);
            windows.values().removeIf(w -> w.start + rules.windowMillis() - 1 + rules.latenessMillis() <= watermark);
        }

        /**
         * A window's row reaches the carry. A newer window moves the carry on; a window that comes
         * again starts from the open-at-start remembered when it first came, and moves the carry
         * only if it is still the device's latest.
         */
        private void carryRow(WindowRow r) {
            long end = r.start + rules.windowMillis();
            boolean newer = carry == null || end > carry.lastWindowEnd;
            boolean openAtStart;
            if (newer) {
                openAtStart = carry != null && carry.openAtEnd;
                openAtStartByWindow.put(r.start, openAtStart);
            } else {
                openAtStart = openAtStartByWindow.getOrDefault(r.start, false);
            }
            // An END with no START before it in the window proves the stop began earlier.
            boolean open = openAtStart || (!r.transitions.isEmpty() && !r.transitions.get(0)[1].equals(1L));
            long since = r.start;
            long down = 0;
            for (Long[] t : r.transitions) {
                if (t[1] == 1L) {
                    if (!open) {
                        open = true;
                        since = t[0];
                    }
                } else if (open) {
                    down += t[0] - since;
                    open = false;
                }
            }
            if (open) {
                down += end - since;
            }
            rows.put(r.start, new Row(id, r.lineId, r.start, r.pieces, r.stops, down, r.events, r.firstTs, r.lastTs));
            if (r.start >= horizon && !r.transitions.isEmpty()) {
                // A whole window with a stop or restart event: whether a stop is open at its end no
                // longer depends on anything before the read.
                carryKnownFrom = Math.min(carryKnownFrom, end);
            }
            if (newer || end == carry.lastWindowEnd) {
                if (carry == null) {
                    carry = new Carry();
                }
                carry.lineId = r.lineId;
                carry.lastWindowEnd = end;
                carry.openAtEnd = open;
                carry.silentWindows = 0;
                if (open) {
                    carryTimers.add(end + rules.windowMillis() - 1);
                }
            }
        }
    }

    /** What a device's last window left open. */
    private static final class Carry {
        String lineId;
        long lastWindowEnd;
        boolean openAtEnd;
        long silentWindows;
    }

    /** A window's running figures; {@code endTimer} is false for a window first seen after its end. */
    private static final class Window {
        final long start;
        final boolean endTimer;
        /** The fingerprints of the ids counted here. */
        final Set<Long> ids = new HashSet<>();

        String lineId;
        long pieces;
        int stops;
        long events;
        long firstTs = Long.MAX_VALUE;
        long lastTs = Long.MIN_VALUE;
        /** (time, 1 for a start or 0 for an end), sorted by time, an end before a start at a tie. */
        final List<Long[]> transitions = new ArrayList<>();

        Window(long start, boolean endTimer) {
            this.start = start;
            this.endTimer = endTimer;
        }

        void add(DeviceEvent e) {
            lineId = e.lineId;
            events++;
            firstTs = Math.min(firstTs, e.ts);
            lastTs = Math.max(lastTs, e.ts);
            switch (e.type) {
                case PIECE_PRODUCED -> pieces += e.count;
                case DOWNTIME_START -> {
                    stops++;
                    insert(new Long[] {e.ts, 1L});
                }
                case DOWNTIME_END -> insert(new Long[] {e.ts, 0L});
            }
        }

        private void insert(Long[] t) {
            int i = 0;
            while (i < transitions.size()
                    && (transitions.get(i)[0] < t[0]
                            || (transitions.get(i)[0].equals(t[0])
                                    && transitions.get(i)[1] <= t[1]))) {
                i++;
            }
            transitions.add(i, t);
        }

        WindowRow row() {
            return new WindowRow(start, lineId, pieces, stops, events, firstTs, lastTs, List.copyOf(transitions));
        }
    }

    /** A window's row as emitted, before the carry computes its downtime. */
    private record WindowRow(
            long start,
            String lineId,
            long pieces,
            int stops,
            long events,
            long firstTs,
            long lastTs,
            List<Long[]> transitions) {}
}
