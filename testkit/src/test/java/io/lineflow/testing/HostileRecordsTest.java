package io.lineflow.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lineflow.rules.event.DeviceEventJson;
import io.lineflow.rules.event.EventField;
import io.lineflow.rules.event.ParsedRecord;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The generator's valid records against the event table: the parser accepts each, and together
 * they use every member of {@link EventField} and no other, so the hostile variants start from
 * the whole format.
 */
class HostileRecordsTest {
    private static final long NOW = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final long EARLIEST = Instant.parse("2000-01-01T00:00:00Z").toEpochMilli();
    private static final long MAX_FUTURE = 3_600_000;
    private static final int MAX_BYTES = 64 * 1024;

    @Test
    void validRecordsAreAcceptedAndTogetherUseEveryMemberOfTheTable() throws IOException {
        DeviceEventJson json = new DeviceEventJson(MAX_BYTES, EARLIEST, MAX_FUTURE);
        Random random = new Random(23);
        Set<String> used = new HashSet<>();
        int valid = 0;
        for (int i = 0; i < 2_000; i++) {
            HostileRecords.Record record = HostileRecords.next(random, NOW, EARLIEST, MAX_FUTURE, MAX_BYTES, "dev-");
            if (!record.kind.equals("valid")) {
                continue;
            }
            valid++;
            ParsedRecord parsed = json.parse(record.key, record.value, "t", 0, i, NOW);
            assertThat(parsed.isAccepted()).as(record.toString()).isTrue();
            used.addAll(memberNames(record.value));
        }
        assertThat(valid).as("valid records among 2,000").isGreaterThan(100);
        assertThat(used)
                .isEqualTo(
                        Arrays.stream(EventField.values()).map(f -> f.jsonName).collect(Collectors.toSet()));
    }

    /** The names of the top-level members of the JSON object {@code value}. */
    private static Set<String> memberNames(byte[] value) throws IOException {
        Set<String> names = new HashSet<>();
        try (JsonParser p = new JsonFactory().createParser(value)) {
            assertThat(p.nextToken()).isEqualTo(JsonToken.START_OBJECT);
            String name;
            while ((name = p.nextFieldName()) != null) {
                names.add(name);
                p.nextToken();
                p.skipChildren();
            }
        }
        return names;
    }
}
