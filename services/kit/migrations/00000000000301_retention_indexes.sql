-- The retention job (kit::retention) deletes old rows in small batches by
-- their time column; without these indexes each batch would scan the table.
create index if not exists outbox_sent_idx on outbox (sent_at) where sent_at is not null;
create index if not exists processed_event_processed_idx on processed_event (processed_at);
create index if not exists idempotency_key_created_idx on idempotency_key (created_at);
-- Only ended jobs are ever pruned (succeeded, failed, cancelled).
create index if not exists export_job_finished_idx on export_job (finished_at)
    where status in (3, 4, 5);
