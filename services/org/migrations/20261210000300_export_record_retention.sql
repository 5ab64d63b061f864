-- Retention deletes the records requested before its cut-off, across
-- enterprises, hourly: by their request time.
create index export_record_created_idx on export_record (created_at);
