package io.lineflow.testing;

import io.lineflow.job.config.LineflowOptions;
import io.lineflow.job.functions.DeviceWindowStats;
import io.lineflow.rules.Windows;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The table the job must produce for a set of counted events, computed the slow, obvious way:
 * every device's events sorted in time, windows walked in order, a stop carried across them. Keys
 * are {@link WindowTable#key}.
 *
 * <p>The events must be given in the order the job reads them (a device's events all come from one
 * partition, so the order they were produced in): a row takes the line of the last event counted
 * in it in that order, and a silent stopped window the line of the row before it, as the job does.
 * Silent stopped windows are expected only for the silent fill after a device's last window with
 * events ({@code CarryDowntime}).
 */
public final class ExpectedWindows {
    private ExpectedWindows() {}

    /** With the job's default {@code lineflow.downtime.silent-fill}. */
    public static Map<String, DeviceWindowStats> of(List<DeviceEvent> events, long windowMillis) {
        return of(
                events,
                windowMillis,
                LineflowOptions.DOWNTIME_SILENT_FILL.defaultValue().toMillis());
    }

    /**
     * @param silentFillMillis silent stopped windows are expected for at most this long after a
     *     device's last window with events ({@code lineflow.downtime.silent-fill})
     */
    public static Map<String, DeviceWindowStats> of(
            List<DeviceEvent> events, long windowMillis, long silentFillMillis) {
        long maxSilent = Windows.maxSilentWindows(windowMillis, silentFillMillis);
        Map<String, DeviceWindowStats> table = new TreeMap<>();
        Map<String, List<DeviceEvent>> byDevice =
                events.stream().collect(Collectors.groupingBy(e -> e.deviceId, TreeMap::new, Collectors.toList()));
        byDevice.forEach((device, arrived) -> {
            List<DeviceEvent> list = new ArrayList<>(arrived);
            list.sort(Comparator.<DeviceEvent>comparingLong(e -> e.ts)
                    .thenComparing(e -> e.type == EventType.DOWNTIME_START));
            long first = Windows.start(list.get(0).ts, windowMillis);
            long last = Windows.start(list.get(list.size() - 1).ts, windowMillis);
            boolean open = false;
            long silent = 0;
            String line = null;
            for (long start = first; start <= last; start += windowMillis) {
                long end = start + windowMillis;
                List<DeviceEvent> in = new ArrayList<>();
                for (DeviceEvent e : list) {
                    if (e.ts >= start && e.ts < end) {
                        in.add(e);
                    }
                }
                if (in.isEmpty()) {
                    if (!open || silent == maxSilent) {
                        continue;
                    }
                    silent++;
                } else {
                    silent = 0;
                }
                DeviceWindowStats row = new DeviceWindowStats();
                row.deviceId = device;
                for (DeviceEvent e : arrived) {
                    if (e.ts >= start && e.ts < end) {
                        line = e.lineId;
                    }
                }
                row.lineId = line;
                row.windowStart = start;
                row.windowEnd = end;
                List<DeviceEvent> transitions = in.stream()
                        .filter(e -> e.type != EventType.PIECE_PRODUCED)
                        .collect(Collectors.toList());
                boolean down = open || (!transitions.isEmpty() && transitions.get(0).type == EventType.DOWNTIME_END);
                long since = start;
                for (DeviceEvent e : in) {
                    row.eventsSeen++;
                    if (e.type == EventType.PIECE_PRODUCED) {
                        row.piecesProduced += e.count;
                    } else if (e.type == EventType.DOWNTIME_START) {
                        row.downtimeCount++;
                        if (!down) {
                            down = true;
                            since = e.ts;
                        }
                    } else if (down) {
                        row.downtimeMillis += e.ts - since;
                        down = false;
                    }
                }
                if (down) {
                    row.downtimeMillis += end - since;
                }
                open = down;
                if (!in.isEmpty()) {
                    row.firstEventTs = in.get(0).ts;
                    row.lastEventTs = in.get(in.size() - 1).ts;
                }
                table.put(WindowTable.key(device, start), row);
            }
        });
        return table;
    }
}
