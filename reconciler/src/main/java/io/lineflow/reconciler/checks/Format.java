package io.lineflow.reconciler.checks;

import java.time.Duration;

/** How the checks write durations and rates into messages and evidence. */
final class Format {

    private Format() {}

    /** Two decimals: enough to read a ratio or rate, and stable in evidence. */
    static double round(double v) {
        return Math.round(v * 100.0) / 100.0;
    }

    /** "1h 5m", "40s". */
    static String human(Duration d) {
        long s = d.toSeconds();
        if (s < 120) {
            return s + "s";
        }
        if (s < 7200) {
            return (s / 60) + "m" + (s % 60 == 0 ? "" : " " + (s % 60) + "s");
        }
        return (s / 3600) + "h" + ((s % 3600) / 60 == 0 ? "" : " " + (s % 3600) / 60 + "m");
    }
}
