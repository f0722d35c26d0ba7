package io.lineflow.drill;

import io.lineflow.drill.local.LocalDrill;
import io.lineflow.drill.local.LocalSoak;
import io.lineflow.drill.soak.SoakOptions;

import java.util.List;

/**
 * {@code make soak}: lineflow's job on the drill's local cluster for a long run under a fault
 * every few minutes; exits non-zero when a verdict fails (docs/soak.md).
 *
 * <pre>
 * --duration D        how long the input runs (60 min)
 * --rate N            events per second (2000)
 * --fault-every D     one fault per D, cycling (5 min); none in the last D
 * --faults a,b|all|none   which faults, in order (all: the drill's six and the five hard ones)
 * --recovery-limit D  fault → steady lag allowed (2 min)
 * </pre>
 */
public final class Soak {
    private Soak() {}

    public static void main(String[] args) throws Exception {
        SoakOptions options;
        try {
            options = SoakOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(LocalSoak.run(LocalDrill.settingsFromSystemProperties(), options) ? 0 : 1);
    }
}
