-- Export jobs of the service that owns the exported list (kit::export). A
-- job's id is also the id of org's export record; the worker claims queued
-- jobs with SKIP LOCKED and holds a lease it renews with every page, so a job
-- whose worker died is claimed again once the lease has run out.
create table export_job (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The domain's export kind, e.g. 'users' or 'vehicles'.
    kind text not null,
    name text not null,
    module text not null,
    requested_by uuid,
    -- The domain's list filter (its protobuf message) and the requester's
    -- reach at the time of the request, both applied by the domain's fetch.
    filter bytea not null default '',
    filters_json text not null default '{}',
    reach jsonb not null default '{}',
    -- ExportJobStatus: 1 queued, 2 running, 3 succeeded, 4 failed, 5 cancelled.
    status smallint not null default 1 check (status between 1 and 5),
    -- 1 for the first run, one more for each retry.
    run int not null default 1,
    -- Claims within the current run (a resumed job counts again).
    attempts int not null default 0,
    cancel_requested boolean not null default false,
    lease_until timestamptz,
    rows_done bigint not null default 0,
    rows_total bigint not null default 0,
    file_key text not null default '',
    failure_reason text not null default '',
    created_at timestamptz not null default now(),
    started_at timestamptz,
    finished_at timestamptz
);

-- What the worker looks for: queued jobs, and running ones whose lease ran out.
create index export_job_open_idx on export_job (created_at) where status in (1, 2);

select enable_tenant_rls('export_job');
