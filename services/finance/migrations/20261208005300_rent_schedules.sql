-- Rent instalments raised from vehicle's usage records (bills::rent).
--
-- rent_schedule keeps the latest state of each rental finance has heard of
-- (vehicle.v1.UsageRecordChanged): terms, the billing end, and how far it
-- is billed. `revision` is the record's change time: an older event never
-- overwrites a newer state. `billed_until` is the first day not billed yet
-- (Asia/Shanghai); `next_close` the day the next period closes, which the
-- periodic tick looks for (null when nothing is left to bill).
--
-- rent_instalment is one row per record and period billed, with its bill:
-- its primary key is the "never twice for one record and period" rule
-- (the bill's own source key, `<record>:<first day>`, says it again). A
-- period is keyed by its first day: a month is billed in two parts when a
-- lease passes its contract end and is extended afterwards.

create table rent_schedule (
    usage_record_id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    vehicle_id uuid not null,
    plate_number text not null default '',
    contract_no text not null default '',
    start_time timestamptz not null,
    -- The contract's end, or the actual end once the record ended.
    end_time timestamptz,
    ended boolean not null default false,
    monthly_rent_fen bigint not null check (monthly_rent_fen >= 0),
    payment_day int not null check (payment_day between 1 and 28),
    revision timestamptz not null,
    billed_until date,
    next_close date,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('rent_schedule');
select manage_updated_at('rent_schedule');

-- The tick: schedules whose next period has closed, across tenants.
create index rent_schedule_next_close_idx on rent_schedule (next_close)
    where next_close is not null;
create index rent_schedule_enterprise_idx on rent_schedule (enterprise_id, created_at desc, usage_record_id desc);

create table rent_instalment (
    enterprise_id uuid not null,
    usage_record_id uuid not null references rent_schedule (usage_record_id),
    -- yyyymm, Asia/Shanghai.
    period int not null check (period % 100 between 1 and 12),
    bill_id uuid not null references bill (id),
    -- The days billed: [period_start, period_end), of month_days in the month.
    period_start date not null,
    period_end date not null check (period_end > period_start),
    days int not null,
    month_days int not null,
    monthly_rent_fen bigint not null,
    amount_fen bigint not null check (amount_fen >= 0),
    created_at timestamptz not null default now(),
    primary key (enterprise_id, usage_record_id, period_start)
);

select enable_tenant_rls('rent_instalment');

create index rent_instalment_bill_idx on rent_instalment (bill_id);
