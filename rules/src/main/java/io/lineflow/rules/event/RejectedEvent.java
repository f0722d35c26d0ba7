package io.lineflow.rules.event;

import java.util.Arrays;
import java.util.Objects;

/** An input record kept in {@code rejected_events} instead of being counted, with the reason. */
public class RejectedEvent {
    public String topic;
    public int partition;
    public long offset;
    public byte[] raw;
    public RejectReason reason;
    /** Human-readable detail, e.g. which field was wrong; {@link PgText#escaped} as it may quote input. */
    public String detail;

    public RejectedEvent() {}

    public RejectedEvent(String topic, int partition, long offset, byte[] raw, RejectReason reason, String detail) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.raw = raw;
        this.reason = reason;
        this.detail = PgText.escaped(detail);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RejectedEvent)) {
            return false;
        }
        RejectedEvent r = (RejectedEvent) o;
        return partition == r.partition
                && offset == r.offset
                && Objects.equals(topic, r.topic)
                && Arrays.equals(raw, r.raw)
                && reason == r.reason
                && Objects.equals(detail, r.detail);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, offset, reason);
    }

    @Override
    public String toString() {
        return String.format("Rejected{%s-%d:%d %s %s}", topic, partition, offset, reason, detail);
    }
}
