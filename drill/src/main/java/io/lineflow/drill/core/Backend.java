package io.lineflow.drill.core;

/**
 * Where a drill's job runs, as the drill's core needs it: the job's state, a fault struck, and
 * the Kafka and PostgreSQL beside the job. The timeline and the verifier are the core's, the same
 * for every backend.
 */
public interface Backend {
    /** The two places a drill runs. */
    enum Kind {
        /** A multi-process Flink cluster on this machine ({@code make drill}). */
        LOCAL,
        /** The job the Flink Kubernetes Operator runs on a real node ({@code make e2e}). */
        KUBERNETES
    }

    /** The job as this backend sees it now. */
    RunState job();

    /**
     * Strikes {@code fault}. A strike that waits for the job to run again (a change of spec the
     * operator carries out) returns that moment; the others return null, and the timeline watches
     * the recovery.
     *
     * @throws IllegalArgumentException for a fault this backend does not offer
     */
    Long strike(Fault fault) throws Exception;

    /** Where the job writes its table. */
    TableCheck.Database database();

    /**
     * The job's state at one moment.
     *
     * @param running RUNNING with every task running, as far as the backend can tell
     * @param runningSince when it became RUNNING (epoch ms), or null where the backend cannot tell
     */
    record RunState(boolean running, Long runningSince) {
        /** A job that is not running, or whose state cannot be read just now. */
        public static final RunState DOWN = new RunState(false, null);
    }
}
