-- Export records follow the jobs of the service that exports (kit::export):
-- created from its `requested` event, updated from `progressed`, `finished`,
-- `failed` and `cancelled`. The run tells a retry's events from the earlier
-- run's, which change nothing once a newer run began.
alter table export_record
    add column domain text not null default 'org',
    add column run int not null default 1,
    add column rows_done bigint not null default 0,
    add column rows_total bigint not null default 0;

-- ExportStatus gains 6 cancelled.
alter table export_record
    add constraint export_record_status_check check (status between 1 and 6);
