package io.lineflow.flinkrest;

/**
 * A TaskManager as {@code GET /taskmanagers} lists it.
 *
 * @param id its resource id: under native Kubernetes, its pod's name
 */
public record TaskManager(String id, int slotsNumber, int freeSlots) {
    /** Whether any of its slots is taken, i.e. it runs tasks of a job. */
    public boolean busy() {
        return freeSlots < slotsNumber;
    }
}
