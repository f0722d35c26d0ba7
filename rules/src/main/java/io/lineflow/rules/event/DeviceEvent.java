package io.lineflow.rules.event;

import java.util.Objects;

/**
 * One accepted device event, with the Kafka coordinates it was read from.
 *
 * <p>A plain class without Flink: the job gives its streams of events their own serializer
 * explicitly ({@code io.lineflow.job.event.DeviceEventTypeInfo}), and the audit's recount uses it
 * without Flink. The coordinates let a duplicate or late event be kept in {@code rejected_events} under its own
 * (topic, partition, offset) key.
 */
public class DeviceEvent {
    public String eventId;
    public String deviceId;
    public String lineId;
    public EventType type;
    /** Event time, epoch milliseconds. */
    public long ts;

    public int count;
    public String reason;

    public String topic;
    public int partition;
    public long offset;

    public DeviceEvent() {}

    public DeviceEvent(
            String eventId, String deviceId, String lineId, EventType type, long ts, int count, String reason) {
        this.eventId = eventId;
        this.deviceId = deviceId;
        this.lineId = lineId;
        this.type = type;
        this.ts = ts;
        this.count = count;
        this.reason = reason;
    }

    /** Returns this event with the Kafka coordinates it was read from. */
    public DeviceEvent at(String topic, int partition, long offset) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        return this;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DeviceEvent)) {
            return false;
        }
        DeviceEvent e = (DeviceEvent) o;
        return ts == e.ts
                && count == e.count
                && partition == e.partition
                && offset == e.offset
                && Objects.equals(eventId, e.eventId)
                && Objects.equals(deviceId, e.deviceId)
                && Objects.equals(lineId, e.lineId)
                && type == e.type
                && Objects.equals(reason, e.reason)
                && Objects.equals(topic, e.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(eventId, deviceId, ts, type, topic, partition, offset);
    }

    @Override
    public String toString() {
        return String.format(
                "DeviceEvent{%s %s/%s %s ts=%d count=%d @%s-%d:%d}",
                eventId, lineId, deviceId, type, ts, count, topic, partition, offset);
    }
}
