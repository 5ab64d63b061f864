-- Events waiting to be published to JetStream. A row is written in the same
-- transaction as the change it announces; the relay publishes it with
-- Nats-Msg-Id = id and sets sent_at only after the JetStream ack.
create table outbox (
    id uuid primary key,
    subject text not null,
    payload bytea not null,
    created_at timestamptz not null default now(),
    attempts int not null default 0,
    last_error text,
    sent_at timestamptz
);

create index outbox_unsent_idx on outbox (created_at) where sent_at is null;

-- Events a consumer of this service has applied, written in the same
-- transaction as the effect, so each event id is applied once.
create table processed_event (
    event_id uuid primary key,
    subject text not null,
    processed_at timestamptz not null default now()
);
