package io.lineflow.rules.event;

/**
 * What the Kafka deserializer hands on: either an accepted {@link DeviceEvent} or a {@link
 * RejectedEvent}. Deserialization never throws, so bad input cannot fail the job.
 */
public class ParsedRecord {
    public DeviceEvent event;
    public RejectedEvent rejected;

    public ParsedRecord() {}

    public static ParsedRecord accepted(DeviceEvent event) {
        ParsedRecord r = new ParsedRecord();
        r.event = event;
        return r;
    }

    public static ParsedRecord rejected(RejectedEvent rejected) {
        ParsedRecord r = new ParsedRecord();
        r.rejected = rejected;
        return r;
    }

    public boolean isAccepted() {
        return event != null;
    }

    @Override
    public String toString() {
        return isAccepted() ? event.toString() : rejected.toString();
    }
}
