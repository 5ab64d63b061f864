-- Telemetry messages ingest could not store (ingest::dead_letter): a batch
-- whose transaction fails for a reason that is not transient is split until
-- the failing messages are alone; the rest is stored, and these are parked
-- here and acked, so one bad fix never stalls history. Operators list them
-- newest first and replay them after a fix (`fleetdesk dead-letters`).
--
-- Service-scoped: a message is parked before anything in it is trusted (its
-- tenant is whatever its subject claims), and only operators read it.
create table telemetry_dead_letter (
    id bigint generated always as identity primary key,
    subject text not null,
    -- The message as the stream delivered it (a telematics.v1.Fix).
    payload bytea not null,
    -- Its sequence in the telemetry stream.
    stream_sequence bigint not null,
    -- The error of its last attempt.
    error text not null,
    -- Parkings and failed replays.
    attempts int not null default 1,
    parked_at timestamptz not null default now(),
    -- Its last failed attempt.
    failed_at timestamptz not null default now()
);

-- A message parked again (its ack was lost) is the same row. The payload
-- is part of the key: a stream created anew starts its sequences again.
create unique index telemetry_dead_letter_message_key
    on telemetry_dead_letter (stream_sequence, sha256(payload));

-- The operator's list: newest first.
create index telemetry_dead_letter_parked_idx on telemetry_dead_letter (parked_at desc, id desc);
