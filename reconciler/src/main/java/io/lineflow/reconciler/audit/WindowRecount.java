package io.lineflow.reconciler.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Recounts lineflow's window table from the raw Kafka records, independently of the job's code:
 * the audit's second opinion. Pure: records in, rows out.
 *
 * <p>It follows the job's rules — invalid records and repeated event ids are not counted, an
 * event is late when its partition's watermark has passed its window end plus the allowed
 * lateness, downtime is carried across windows — and recounts only windows that are closed for
 * every partition. Lateness is judged per partition (the job's watermark is the minimum over
 * partitions, so it can judge an event on time that this calls late, never the reverse).
 */
public final class WindowRecount {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TYPES = Set.of("PIECE_PRODUCED", "DOWNTIME_START", "DOWNTIME_END");

    /** One Kafka record as read. */
    public record Input(int partition, byte[] key, byte[] value) {}

    /** One recounted row of {@code device_window_stats}. */
    public record Row(String deviceId, String lineId, long windowStart, long pieces, int downtimeCount,
            long downtimeMillis, long events, Long firstTs, Long lastTs) {
        public String key() {
            return deviceId + "@" + Instant.ofEpochMilli(windowStart);
        }
    }

    /** The recount: rows of closed windows, keyed {@code device@windowStart}, and what was left out. */
    public record Result(Map<String, Row> rows, long closedBefore, long counted, long invalid, long duplicates, long late) {}

    private record Event(String id, String device, String line, String type, long ts, long count) {}

    private WindowRecount() {}

    public static Result recount(List<Input> records, long windowMillis, long latenessMillis, long outOfOrdernessMillis) {
        Map<Integer, Long> maxTs = new HashMap<>();
        Map<String, Set<String>> seen = new HashMap<>();
        Map<String, List<Event>> byDevice = new TreeMap<>();
        long invalid = 0;
        long duplicates = 0;
        long late = 0;
        for (Input r : records) {
            Event e = parse(r);
            if (e == null) {
                invalid++;
                continue;
            }
            if (!seen.computeIfAbsent(e.device, d -> new HashSet<>()).add(e.id)) {
                duplicates++;
                continue;
            }
            // Flink's bounded out-of-orderness watermark: the largest time seen, less the bound, less 1 ms.
            long watermark = maxTs.getOrDefault(r.partition, Long.MIN_VALUE + outOfOrdernessMillis + 1) - outOfOrdernessMillis - 1;
            long windowEnd = windowStart(e.ts, windowMillis) + windowMillis;
            maxTs.merge(r.partition, e.ts, Math::max);
            if (windowEnd - 1 + latenessMillis <= watermark) {
                late++;
                continue;
            }
            byDevice.computeIfAbsent(e.device, d -> new ArrayList<>()).add(e);
        }
        long closedBefore = maxTs.values().stream().mapToLong(t -> t - outOfOrdernessMillis - 1).min().orElse(Long.MIN_VALUE);
        Map<String, Row> rows = new TreeMap<>();
        long counted = 0;
        for (List<Event> events : byDevice.values()) {
            counted += recountDevice(events, windowMillis, closedBefore, rows);
        }
        return new Result(rows, closedBefore, counted, invalid, duplicates, late);
    }

    /** Walks one device's windows in order, carrying an open stop; returns the events counted. */
    private static long recountDevice(List<Event> events, long windowMillis, long closedBefore, Map<String, Row> rows) {
        events.sort(Comparator.comparingLong(Event::ts).thenComparing(e -> e.type.equals("DOWNTIME_START")));
        boolean open = false;
        long counted = 0;
        int i = 0;
        for (long start = windowStart(events.get(0).ts, windowMillis); i < events.size(); start += windowMillis) {
            long end = start + windowMillis;
            if (end - 1 > closedBefore) {
                break; // still open for some partition: the job has not written it yet
            }
            List<Event> in = new ArrayList<>();
            while (i < events.size() && events.get(i).ts < end) {
                in.add(events.get(i++));
            }
            if (in.isEmpty() && !open) {
                continue;
            }
            long pieces = 0;
            int stops = 0;
            long down = 0;
            boolean firstIsEnd = in.stream().filter(e -> !e.type.equals("PIECE_PRODUCED")).findFirst()
                    .map(e -> e.type.equals("DOWNTIME_END")).orElse(false);
            boolean stopped = open || firstIsEnd;
            long since = start;
            for (Event e : in) {
                switch (e.type) {
                    case "PIECE_PRODUCED" -> pieces += e.count;
                    case "DOWNTIME_START" -> {
                        stops++;
                        if (!stopped) {
                            stopped = true;
                            since = e.ts;
                        }
                    }
                    default -> {
                        if (stopped) {
                            down += e.ts - since;
                            stopped = false;
                        }
                    }
                }
            }
            if (stopped) {
                down += end - since;
            }
            open = stopped;
            counted += in.size();
            String line = in.isEmpty() ? events.get(0).line : in.get(0).line;
            Row row = new Row(events.get(0).device, line, start, pieces, stops, down, in.size(),
                    in.isEmpty() ? null : in.get(0).ts, in.isEmpty() ? null : in.get(in.size() - 1).ts);
            rows.put(row.key(), row);
        }
        return counted;
    }

    /** The event, or null if the job would reject the record. */
    private static Event parse(Input r) {
        if (r.key == null || r.value == null) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(r.value);
            if (n == null || !n.isObject()) {
                return null;
            }
            String id = text(n, "eventId");
            String device = text(n, "deviceId");
            String line = text(n, "lineId");
            String type = text(n, "type");
            JsonNode ts = n.get("ts");
            JsonNode count = n.get("count");
            if (id == null || device == null || line == null || type == null || !TYPES.contains(type)
                    || ts == null || !device.equals(new String(r.key, StandardCharsets.UTF_8))) {
                return null;
            }
            long millis = ts.isIntegralNumber() ? ts.asLong() : Instant.parse(ts.asText()).toEpochMilli();
            long c = count == null || count.isNull() ? 1 : count.isIntegralNumber() ? count.asLong() : -1;
            return c < 0 ? null : new Event(id, device, line, type, millis, c);
        } catch (IOException | DateTimeParseException e) {
            return null;
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    static long windowStart(long ts, long windowMillis) {
        return ts - Math.floorMod(ts, windowMillis);
    }
}
