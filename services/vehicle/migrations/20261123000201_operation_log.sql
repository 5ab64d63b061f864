-- The operation log (console spec §3 operation-log table): one row per change of a
-- vehicle, driver or usage record, written in the same transaction as the
-- change. Rows are never updated or deleted.
create table operation_log (
    id uuid primary key,
    enterprise_id uuid not null,
    -- BusinessType of the changed object (vehicle, driver, usage record).
    business_type smallint not null,
    business_id uuid not null,
    -- What changed, field by field, in Chinese.
    remark text not null,
    operator_id uuid,
    operator_name text not null,
    created_at timestamptz not null default now()
);

select enable_tenant_rls('operation_log');

-- The detail page's log table: one object's rows, newest first.
create index operation_log_business_idx
    on operation_log (enterprise_id, business_id, created_at desc, id desc);
