package io.lineflow.reconciler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.event.DeviceEventJson;
import io.lineflow.job.event.ParsedRecord;

import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The recount must reject exactly the records the job's parser rejects: hostile records (valid
 * ones mutated: fields dropped, nulled or of the wrong type, extreme numbers and dates, text
 * PostgreSQL refuses, trailing garbage, wrong or missing keys, oversized values) through the
 * job's {@link DeviceEventJson} with its default limits and through {@link WindowRecount}.
 */
class RecountParserDifferentialTest {
    private static final int RECORDS = 20_000;
    private static final WindowRecount.Rules RULES = new WindowRecount.Rules(
            300_000,
            60_000,
            10_000,
            3_600_000,
            65_536,
            3_600_000,
            Instant.parse("2000-01-01T00:00:00Z").toEpochMilli(),
            7L * 24 * 3_600_000);

    private final DeviceEventJson job = DeviceEventJson.fromConfig(new Configuration());

    @Test
    void theRecountAcceptsExactlyWhatTheJobAccepts() {
        long seed = Long.getLong("recount.seed", System.nanoTime());
        Random rnd = new Random(seed);
        long now = System.currentTimeMillis();
        List<String> disagreements = new ArrayList<>();
        int accepted = 0;
        for (int i = 0; i < RECORDS && disagreements.size() < 10; i++) {
            String device = rnd.nextInt(10) == 0 ? "d\u0000" : "d" + rnd.nextInt(3);
            byte[] key = rnd.nextInt(30) == 0
                    ? null
                    : (rnd.nextInt(20) == 0 ? "other" : device).getBytes(StandardCharsets.UTF_8);
            byte[] value = mutated(rnd, device, now).getBytes(StandardCharsets.UTF_8);
            ParsedRecord byJob = job.parse(key, value, "t", 0, i, now);
            long recountInvalid = WindowRecount.recount(List.of(new WindowRecount.Input(0, now, key, value)), RULES)
                    .invalid();
            if (byJob.isAccepted() != (recountInvalid == 0)) {
                disagreements.add((byJob.isAccepted()
                                ? "job accepts, recount rejects: "
                                : "job rejects (" + byJob.rejected.reason + "), recount accepts: ")
                        + new String(value, StandardCharsets.UTF_8));
            }
            accepted += byJob.isAccepted() ? 1 : 0;
        }
        assertThat(disagreements).as("seed %d", seed).isEmpty();
        assertThat(accepted).as("the mutations leave some records valid").isBetween(RECORDS / 20, RECORDS * 19 / 20);
    }

    private static String mutated(Random rnd, String device, long now) {
        String[] ts = {
            Long.toString(now - rnd.nextInt(86_400_000)),
            "\"" + Instant.ofEpochMilli(now - rnd.nextInt(86_400_000)) + "\"",
            Long.toString(now + 7_200_000),
            "\"+300000000-01-01T00:00:00Z\"",
            "\"-300000000-01-01T00:00:00Z\"",
            "-300000000000000",
            "92233720368547758070",
            "\"1999-12-31T23:59:59Z\"",
            "0",
            "1.5",
            "\"soon\"",
            "null",
            "[]",
        };
        String[] count = {
            "1", "0", "3", "-1", "2147483647", "2147483648", "99999999999999999999", "1.0", "\"2\"", "null", "{}"
        };
        String[] text = {
            "\"L1\"",
            "\"\"",
            "\"L\\u0000\"",
            "\"\\ud800\"",
            "\"\\ud83d\\ude00\"",
            "null",
            "7",
            "\"" + "x".repeat(1_100) + "\""
        };
        String[] type = {
            "\"PIECE_PRODUCED\"",
            "\"DOWNTIME_START\"",
            "\"DOWNTIME_END\"",
            "\"piece_produced\"",
            "\"BOOM\"",
            "null",
            "1"
        };
        StringBuilder b = new StringBuilder("{");
        List<String> fields = new ArrayList<>(List.of(
                "\"eventId\":" + (rnd.nextInt(6) == 0 ? pick(rnd, text) : "\"e" + rnd.nextInt(1000) + "\""),
                "\"deviceId\":\"" + device.replace("\u0000", "\\u0000") + "\"",
                "\"lineId\":" + (rnd.nextInt(4) == 0 ? pick(rnd, text) : "\"L1\""),
                "\"type\":" + (rnd.nextInt(4) == 0 ? pick(rnd, type) : "\"PIECE_PRODUCED\""),
                "\"ts\":" + (rnd.nextInt(3) == 0 ? pick(rnd, ts) : ts[rnd.nextInt(2)])));
        if (rnd.nextBoolean()) {
            fields.add("\"count\":" + (rnd.nextInt(3) == 0 ? pick(rnd, count) : "2"));
        }
        if (rnd.nextInt(4) == 0) {
            fields.add("\"reason\":" + pick(rnd, text));
        }
        if (rnd.nextInt(5) == 0) {
            fields.add("\"extra\":{\"nested\":[1,{\"deep\":[[[]]]}],\"s\":\""
                    + "y".repeat(rnd.nextInt(3) == 0 ? 70_000 : 10) + "\"}");
        }
        if (rnd.nextInt(8) == 0) {
            fields.remove(rnd.nextInt(fields.size()));
        }
        java.util.Collections.shuffle(fields, rnd);
        b.append(String.join(",", fields)).append('}');
        String json = b.toString();
        return switch (rnd.nextInt(25)) {
            case 0 -> json.substring(0, rnd.nextInt(json.length()));
            case 1 -> json + " x";
            case 2 -> "[" + json + "]";
            case 3 -> json + json;
            default -> json;
        };
    }

    private static String pick(Random rnd, String[] options) {
        return options[rnd.nextInt(options.length)];
    }
}
