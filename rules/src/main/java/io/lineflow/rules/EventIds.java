package io.lineflow.rules;

/**
 * The dedup rule's key: an event id as a 64-bit fingerprint. A device's window remembers the
 * fingerprints of the ids it has counted, in 8 bytes each, and forgets them with the window.
 *
 * <p>Two different ids of one device in one window that share a fingerprint would make the second
 * event a {@code DUPLICATE} (kept in {@code rejected_events}, not counted). For ids whose
 * fingerprints behave as random 64-bit values, the chance of that among n ids in a window is about
 * n² / 2⁶⁵: 3 × 10⁻¹⁴ for 1,000 ids, 3 × 10⁻¹² for 10,000.
 */
public final class EventIds {
    private EventIds() {}

    /**
     * The id's fingerprint: every UTF-16 unit is folded in with a multiply and a rotate, and the
     * result is finished with the 64-bit mixer of {@code java.util.SplittableRandom}, so that ids
     * that differ in one character differ in about half the bits.
     */
    public static long fingerprint(String id) {
        long h = 0x9E3779B97F4A7C15L ^ id.length();
        for (int i = 0; i < id.length(); i++) {
            h = Long.rotateLeft((h ^ id.charAt(i)) * 0xBF58476D1CE4E5B9L, 31);
        }
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 31);
    }
}
