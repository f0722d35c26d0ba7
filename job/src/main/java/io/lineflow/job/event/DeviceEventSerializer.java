package io.lineflow.job.event;

import io.lineflow.rules.event.DeviceEvent;
import io.lineflow.rules.event.EventType;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Flink's serializer for {@link DeviceEvent}, the record every event is shuffled as between the
 * source and the keyed windows.
 *
 * <p>The format: the fields in a fixed order; each string as a length header and its bytes, the
 * header a base-128 varint of 0 for null and otherwise the UTF-8 length plus one (one byte for a
 * string of up to 126 bytes); the type as its ordinal; the topic as one byte, 1 when it is the
 * job's own topic (given to the constructor, the only one the source reads) and 0 followed by the
 * string otherwise. An ASCII string is copied into a buffer the serializer keeps rather than
 * encoded into a new array: on the source thread, {@code getBytes}'s arrays were a tenth of its CPU.
 *
 * <p>It replaces Flink's POJO serializer for this one class because the profile of {@code make
 * bench} showed that serializer's reflective field access and its per-string thread-local buffer
 * lookups at about a fifth of the keyed task's CPU; later, reading the strings back was a third
 * of the keyed task, the topic (the same for every event) one of the five.
 *
 * <p>The record format has no version: {@link Snapshot} keeps only the topic and restores
 * whatever serializer the running code has. That is safe because a {@code DeviceEvent} only
 * travels between operators and is never kept in state; with aligned checkpoints (lineflow never
 * enables unaligned ones) no snapshot holds one. Whoever puts it in state or turns on unaligned
 * checkpoints must first give the record format a version and check it on restore.
 */
public final class DeviceEventSerializer extends TypeSerializer<DeviceEvent> {
    private static final long serialVersionUID = 2L;
    private static final EventType[] TYPES = EventType.values();

    /** The topic the job reads; null when it has none (then every topic is written out). */
    private final String topic;

    /**
     * Buffers for strings, so that neither direction allocates more than the String read; one per
     * instance, and {@link #duplicate()} makes a new instance.
     */
    private transient byte[] buffer;

    private transient byte[] writeBuffer;

    /** A serializer for events of {@code topic}, the job's Kafka topic (may be null). */
    public DeviceEventSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<DeviceEvent> duplicate() {
        return new DeviceEventSerializer(topic);
    }

    @Override
    public DeviceEvent createInstance() {
        return new DeviceEvent();
    }

    @Override
    public DeviceEvent copy(DeviceEvent from) {
        return copy(from, new DeviceEvent());
    }

    @Override
    public DeviceEvent copy(DeviceEvent from, DeviceEvent reuse) {
        reuse.eventId = from.eventId;
        reuse.deviceId = from.deviceId;
        reuse.lineId = from.lineId;
        reuse.type = from.type;
        reuse.ts = from.ts;
        reuse.count = from.count;
        reuse.reason = from.reason;
        reuse.topic = from.topic;
        reuse.partition = from.partition;
        reuse.offset = from.offset;
        return reuse;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(DeviceEvent e, DataOutputView out) throws IOException {
        writeString(e.eventId, out);
        writeString(e.deviceId, out);
        writeString(e.lineId, out);
        out.writeByte(e.type == null ? -1 : e.type.ordinal());
        out.writeLong(e.ts);
        out.writeInt(e.count);
        writeString(e.reason, out);
        if (topic != null && topic.equals(e.topic)) {
            out.writeByte(1);
        } else {
            out.writeByte(0);
            writeString(e.topic, out);
        }
        out.writeInt(e.partition);
        out.writeLong(e.offset);
    }

    @Override
    public DeviceEvent deserialize(DataInputView in) throws IOException {
        return deserialize(new DeviceEvent(), in);
    }

    @Override
    public DeviceEvent deserialize(DeviceEvent reuse, DataInputView in) throws IOException {
        reuse.eventId = readString(in);
        reuse.deviceId = readString(in);
        reuse.lineId = readString(in);
        byte type = in.readByte();
        reuse.type = type < 0 ? null : TYPES[type];
        reuse.ts = in.readLong();
        reuse.count = in.readInt();
        reuse.reason = readString(in);
        reuse.topic = in.readByte() == 1 ? topic : readString(in);
        reuse.partition = in.readInt();
        reuse.offset = in.readLong();
        return reuse;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    private void writeString(String s, DataOutputView out) throws IOException {
        if (s == null) {
            writeVarint(0, out);
            return;
        }
        int length = s.length();
        if (writeBuffer == null || writeBuffer.length < length) {
            writeBuffer = new byte[Math.max(length, 64)];
        }
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                writeVarint(utf8.length + 1, out);
                out.write(utf8);
                return;
            }
            writeBuffer[i] = (byte) c;
        }
        // ASCII, nearly every string: each char's low byte is its UTF-8 encoding. (Not
        // DataOutputView.writeBytes: Flink 1.20's DataOutputSerializer moves its position twice there,
        // FLINK-23598.)
        writeVarint(length + 1, out);
        out.write(writeBuffer, 0, length);
    }

    private String readString(DataInputView in) throws IOException {
        int header = readVarint(in);
        if (header == 0) {
            return null;
        }
        int length = header - 1;
        if (buffer == null || buffer.length < length) {
            buffer = new byte[Math.max(length, 64)];
        }
        in.readFully(buffer, 0, length);
        return new String(buffer, 0, length, StandardCharsets.UTF_8);
    }

    private static void writeVarint(int value, DataOutputView out) throws IOException {
        while ((value & ~0x7F) != 0) {
            out.writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.writeByte(value);
    }

    private static int readVarint(DataInputView in) throws IOException {
        int value = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = in.readByte();
            value |= (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof DeviceEventSerializer && Objects.equals(topic, ((DeviceEventSerializer) obj).topic);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(topic);
    }

    @Override
    public TypeSerializerSnapshot<DeviceEvent> snapshotConfiguration() {
        return new Snapshot(topic);
    }

    /** The serializer's topic; the format is the one above. */
    public static final class Snapshot implements TypeSerializerSnapshot<DeviceEvent> {
        private String topic;

        /** For Flink, which reads the topic back with {@link #readSnapshot}. */
        public Snapshot() {}

        Snapshot(String topic) {
            this.topic = topic;
        }

        @Override
        public int getCurrentVersion() {
            return 2;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeBoolean(topic != null);
            if (topic != null) {
                out.writeUTF(topic);
            }
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
            topic = in.readBoolean() ? in.readUTF() : null;
        }

        @Override
        public TypeSerializer<DeviceEvent> restoreSerializer() {
            return new DeviceEventSerializer(topic);
        }

        @Override
        public TypeSerializerSchemaCompatibility<DeviceEvent> resolveSchemaCompatibility(
                TypeSerializerSnapshot<DeviceEvent> oldSerializerSnapshot) {
            return oldSerializerSnapshot instanceof Snapshot
                            && Objects.equals(topic, ((Snapshot) oldSerializerSnapshot).topic)
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
        }
    }
}
