package io.lineflow.job.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.job.functions.WindowAccumulator;
import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.ParsedRecord;
import io.lineflow.rules.event.PgText;
import io.lineflow.rules.event.RejectReason;
import io.lineflow.rules.event.RejectedEvent;
import io.lineflow.testing.HostileRecords;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The parser against generated hostile records ({@link HostileRecords}): it never throws, every
 * record ends exactly one of accepted or rejected, a rejection keeps the raw bytes and a storable
 * detail, and an accepted event is one every later step can take. Each property draws {@code
 * lineflow.fuzz.tries} records (10,000; {@code make fuzz} a million) from a seeded {@link Random}:
 * the seed is printed with the distribution of outcomes, named in a failure, and {@code
 * -Dlineflow.fuzz.seed=N} replays it.
 */
class DeviceEventJsonPropertyTest {
    private static final long NOW = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final long EARLIEST = Instant.parse("2000-01-01T00:00:00Z").toEpochMilli();
    private static final long MAX_FUTURE = Duration.ofHours(1).toMillis();
    private static final int MAX_BYTES = 64 * 1024;
    private static final DeviceEventJson JSON = new DeviceEventJson(MAX_BYTES, EARLIEST, MAX_FUTURE);
    /** PostgreSQL's timestamptz ends in the year 294276; window ends must stay far inside. */
    private static final long PG_MAX_MILLIS =
            Instant.parse("+294276-12-31T23:59:59Z").toEpochMilli();

    private static final int TRIES = Integer.getInteger("lineflow.fuzz.tries", 10_000);
    private static final long SEED = Long.getLong("lineflow.fuzz.seed", System.nanoTime());

    /**
     * Checks {@link #TRIES} records drawn with {@link #SEED}; {@code check} returns what to count
     * of each (its outcome). A failing record is named by its index, kind and the seed.
     */
    private static void forEachRecord(String property, Function<HostileRecords.Record, String> check) {
        Random random = new Random(SEED);
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < TRIES; i++) {
            HostileRecords.Record record = HostileRecords.next(random, NOW, EARLIEST, MAX_FUTURE, MAX_BYTES, "dev-");
            try {
                counts.merge(check.apply(record), 1, Integer::sum);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        property + ": record " + i + " (" + record.kind + ") of seed " + SEED
                                + " (-Dlineflow.fuzz.seed=" + SEED + " replays it): " + e.getMessage(),
                        e);
            }
        }
        System.out.printf("%s: %d records, seed %d: %s%n", property, TRIES, SEED, counts);
    }

    @Test
    void everyRecordIsAcceptedSaneOrRejectedWithItsBytes() {
        forEachRecord("accepted sane or rejected with its bytes", DeviceEventJsonPropertyTest::acceptedSaneOrRejected);
    }

    private static String acceptedSaneOrRejected(HostileRecords.Record record) {
        ParsedRecord parsed = JSON.parse(record.key, record.value, "device-events", 1, 7, NOW);

        assertThat(parsed.event == null)
                .as("exactly one of accepted and rejected")
                .isNotEqualTo(parsed.rejected == null);
        if (parsed.isAccepted()) {
            DeviceEvent e = parsed.event;
            assertThat(e.ts).isBetween(EARLIEST, NOW + MAX_FUTURE);
            assertThat(e.ts + Duration.ofDays(1).toMillis()).isLessThan(PG_MAX_MILLIS);
            assertThat(WindowAccumulator.transitionTime(WindowAccumulator.transition(e.ts, true)))
                    .isEqualTo(e.ts);
            for (String id : new String[] {e.eventId, e.deviceId, e.lineId}) {
                assertThat(id).isNotEmpty();
                assertThat(PgText.idProblem(id)).as("id %s", id).isNull();
            }
            assertThat(e.reason == null || PgText.problem(e.reason) == null).isTrue();
            assertThat(e.type).isNotNull();
            assertThat(e.count).isNotNegative();
            assertThat(record.key).isEqualTo(e.deviceId.getBytes(StandardCharsets.UTF_8));
            // A repeat or late event is kept re-serialized: that must round-trip.
            assertThat(JSON.parse(record.key, DeviceEventJson.toJson(e), "device-events", 1, 7, NOW).event)
                    .isEqualTo(e);
            return "ACCEPTED";
        } else {
            RejectedEvent r = parsed.rejected;
            assertThat(r.raw).isSameAs(record.value);
            assertThat(r.reason).isNotNull();
            assertThat(r.detail).isNotBlank();
            assertThat(PgText.problem(r.detail)).isNull();
            assertThat(r.topic).isEqualTo("device-events");
            assertThat(r.offset).isEqualTo(7);
            return r.reason.name();
        }
    }

    /**
     * The parser reads a record in {@code toJson}'s plain form without Jackson; any other record
     * goes through Jackson. Both must give the same outcome: the record is compared with itself
     * plus one unknown member first, which the plain reader always leaves to Jackson (and Jackson
     * ignores). Jackson's own MALFORMED_JSON messages quote byte positions, so there the reason
     * alone is compared.
     */
    @Test
    void thePlainReaderAgreesWithJackson() {
        forEachRecord("the plain reader agrees with Jackson", DeviceEventJsonPropertyTest::plainAgreesWithJackson);
    }

    private static String plainAgreesWithJackson(HostileRecords.Record record) {
        String value = record.value == null ? null : new String(record.value, StandardCharsets.ISO_8859_1);
        // Only objects with a first member, so that the inserted member keeps valid JSON valid.
        if (value == null
                || !value.stripLeading().startsWith("{")
                || !value.stripLeading().substring(1).stripLeading().startsWith("\"")
                || record.value.length + 16 > MAX_BYTES) {
            return "not compared";
        }
        byte[] viaJackson = value.replaceFirst("\\{", "{\"unknown\":0,").getBytes(StandardCharsets.ISO_8859_1);
        assertThat(outcome(JSON.parse(record.key, record.value, "device-events", 1, 7, NOW)))
                .isEqualTo(outcome(JSON.parse(record.key, viaJackson, "device-events", 1, 7, NOW)));
        return "compared";
    }

    private static Object outcome(ParsedRecord r) {
        if (r.isAccepted()) {
            return r.event;
        }
        return r.rejected.reason == RejectReason.MALFORMED_JSON
                ? r.rejected.reason
                : r.rejected.reason + ": " + r.rejected.detail;
    }
}
