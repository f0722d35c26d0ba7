-- One row per device and 5-minute (configurable) event-time window. The job overwrites a row on
-- conflict, never adds to it, so replays after recovery leave the same figures.
CREATE TABLE device_window_stats (
    device_id        text          NOT NULL,
    window_start     timestamptz   NOT NULL,
    window_end       timestamptz   NOT NULL,
    line_id          text          NOT NULL,
    pieces_produced  bigint        NOT NULL,
    downtime_count   integer       NOT NULL,
    downtime_seconds numeric(12,3) NOT NULL,
    events_seen      bigint        NOT NULL,
    first_event_at   timestamptz,
    last_event_at    timestamptz,
    updated_at       timestamptz   NOT NULL DEFAULT now(),
    PRIMARY KEY (device_id, window_start)
);

CREATE INDEX device_window_stats_window_start ON device_window_stats (window_start);
CREATE INDEX device_window_stats_line ON device_window_stats (line_id, window_start);
