-- Risk records (issue 21, fleetdesk-risk): accidents, customer-service
-- records and warnings. Each row keeps the organisation of its vehicle (or
-- driver) when it was made, for reach. Money is in fen, never negative.
-- Accident changes are logged in operation_log (business type 7, ACCIDENT).

-- Document numbers per enterprise, prefix and Shanghai day (SG20261129 0001).
create table risk_number (
    enterprise_id uuid not null,
    prefix text not null,
    day date not null,
    last int not null,
    primary key (enterprise_id, prefix, day)
);

select enable_tenant_rls('risk_number');

create table accident (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    case_no text not null,
    vehicle_id uuid not null references vehicle (id),
    -- Named by the input, or the driver bound to the vehicle at accident_time.
    driver_id uuid,
    driver_name text not null default '',
    accident_time timestamptz not null,
    address text not null default '',
    -- common.v1.Area as JSON ({provinceCode, provinceName, ...}).
    area jsonb not null default '{}',
    lng double precision,
    lat double precision,
    description text not null default '',
    -- AccidentSeverity, AccidentLiability, AccidentStatus.
    severity smallint not null,
    liability smallint not null,
    status smallint not null,
    injured_count int not null default 0,
    fatality_count int not null default 0,
    estimated_loss_fen bigint not null default 0,
    assessed_loss_fen bigint not null default 0,
    -- Null when the insurer has given none.
    fixed_loss_code text,
    insurance_policy_id text not null default '',
    claim_no text not null default '',
    claim_paid_fen bigint not null default 0,
    repair_order_id text not null default '',
    -- FileRef JSON arrays.
    images jsonb not null default '[]',
    documents jsonb not null default '[]',
    close_time timestamptz,
    remark text not null default '',
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint accident_case_no_key unique (enterprise_id, case_no),
    constraint accident_fixed_loss_code_key unique (enterprise_id, fixed_loss_code),
    constraint accident_amounts_check check (
        estimated_loss_fen >= 0 and assessed_loss_fen >= 0 and claim_paid_fen >= 0
        and injured_count >= 0 and fatality_count >= 0)
);

select enable_tenant_rls('accident');
select manage_updated_at('accident');

-- The list: newest accident first, and its organisation and status filters.
create index accident_time_idx on accident (enterprise_id, accident_time desc, id desc);
create index accident_org_idx on accident (enterprise_id, org_id, accident_time desc);
create index accident_status_idx on accident (enterprise_id, status, accident_time desc);
create index accident_vehicle_idx on accident (enterprise_id, vehicle_id, accident_time desc);
create index accident_driver_idx on accident (enterprise_id, driver_id);

create table customer_service_record (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    ticket_no text not null,
    vehicle_id uuid not null references vehicle (id),
    driver_id uuid,
    driver_name text not null default '',
    -- The alarm it was created from, if any.
    alarm_id uuid references risk_alarm (id) on delete set null,
    caller_name text not null default '',
    caller_phone text not null default '',
    -- ServiceChannel, ServiceCategory, ServiceRecordStatus.
    channel smallint not null,
    category smallint not null,
    status smallint not null,
    summary text not null,
    resolution text not null default '',
    agent_name text not null default '',
    start_time timestamptz not null,
    duration_seconds int not null default 0 check (duration_seconds >= 0),
    follow_up_time timestamptz,
    close_time timestamptz,
    satisfaction smallint not null default 0 check (satisfaction between 0 and 5),
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint customer_service_record_ticket_no_key unique (enterprise_id, ticket_no)
);

select enable_tenant_rls('customer_service_record');
select manage_updated_at('customer_service_record');

create index customer_service_record_time_idx
    on customer_service_record (enterprise_id, start_time desc, id desc);
create index customer_service_record_org_idx
    on customer_service_record (enterprise_id, org_id, start_time desc);
create index customer_service_record_status_idx
    on customer_service_record (enterprise_id, status, start_time desc);

-- Warnings raised by the daily job, once per subject and period: a driver's
-- licence per expiry date, a rent-to-own record per overdue instalment.
create table risk_warning (
    id uuid primary key default gen_random_uuid(),
    enterprise_id uuid not null,
    org_id uuid not null,
    -- WarningType and RiskLevel.
    kind smallint not null,
    level smallint not null check (level between 1 and 3),
    -- The driver or usage record the warning is about, and which period of it.
    subject_id uuid not null,
    period text not null,
    vehicle_id uuid,
    driver_id uuid,
    title text not null,
    content text not null,
    warn_time timestamptz not null,
    -- WarningStatus.
    status smallint not null default 1,
    acknowledged_by text not null default '',
    acknowledged_by_id uuid,
    acknowledge_time timestamptz,
    constraint risk_warning_subject_key unique (enterprise_id, kind, subject_id, period)
);

select enable_tenant_rls('risk_warning');

create index risk_warning_time_idx on risk_warning (enterprise_id, warn_time desc, id desc);
create index risk_warning_status_idx on risk_warning (enterprise_id, status, warn_time desc);
create index risk_warning_org_idx on risk_warning (enterprise_id, org_id, warn_time desc);

-- What the daily job reads: expiring licences and overdue rent-to-own records.
create index usage_record_overdue_idx on usage_record (overdue_periods)
    where kind = 4 and state = 2 and overdue_periods > 0;
