package io.lineflow.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

class EventIdsTest {
    @Test
    void idsThatLookAlikeGetDistinctFingerprintsThatDifferInAboutHalfTheirBits() {
        Set<Long> fingerprints = new HashSet<>();
        long flipped = 0;
        int pairs = 0;
        for (int d = 0; d < 100; d++) {
            for (int w = 0; w < 100; w++) {
                for (int k = 0; k < 100; k++) {
                    String id = "press-" + d + "-w" + w + "-p" + k;
                    assertThat(fingerprints.add(EventIds.fingerprint(id)))
                            .as("a second id with the fingerprint of %s", id)
                            .isTrue();
                    if (k > 0) {
                        flipped += Long.bitCount(EventIds.fingerprint(id)
                                ^ EventIds.fingerprint("press-" + d + "-w" + w + "-p" + (k - 1)));
                        pairs++;
                    }
                }
            }
        }
        assertThat((double) flipped / pairs).isBetween(30.0, 34.0);
    }

    @Test
    void theFingerprintIsAFunctionOfTheWholeIdOnly() {
        assertThat(EventIds.fingerprint("e-1")).isEqualTo(EventIds.fingerprint(new String("e-1")));
        assertThat(EventIds.fingerprint("")).isNotEqualTo(EventIds.fingerprint("\\u0000"));
        assertThat(EventIds.fingerprint("ab")).isNotEqualTo(EventIds.fingerprint("ba"));
    }
}
