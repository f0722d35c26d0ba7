-- Input the job did not count, kept with the reason. Keyed by the Kafka coordinates so that a
-- record rejected again after a replay is stored once.
CREATE TABLE rejected_events (
    topic           text        NOT NULL,
    kafka_partition integer     NOT NULL,
    kafka_offset    bigint      NOT NULL,
    reason          text        NOT NULL,
    detail          text,
    raw             bytea,
    rejected_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (topic, kafka_partition, kafka_offset)
);

CREATE INDEX rejected_events_reason ON rejected_events (reason);
