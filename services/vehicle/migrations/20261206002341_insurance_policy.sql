-- Insurance policies (issue 23, fleetdesk-maintenance::insurance,
-- carGuaranteeSlip): compulsory and commercial policies of a vehicle with
-- their coverage items and documents. The policy number is unique per
-- insurer within an enterprise. Expiry states (pending, valid, expiring
-- within 30 days, expired) are computed from start and end at read time, so
-- the expiring and expired lists are ranges of the end-time index.

create table insurance_policy (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation, for reach.
    org_id uuid not null,
    vehicle_id uuid not null references vehicle (id),
    plate_number text not null,
    -- InsuranceKind: 1 compulsory, 2 commercial, 3 carrier liability, 4 cargo.
    kind smallint not null,
    insurer text not null,
    policy_no text not null,
    insured_name text not null default '',
    start_time timestamptz not null,
    end_time timestamptz not null,
    premium_fen bigint not null,
    -- [{name, sumInsuredFen, premiumFen, deductibleFen}]
    coverages jsonb not null default '[]',
    -- FileRef objects (PDF or images, purpose document).
    documents jsonb not null default '[]',
    created_by uuid,
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint insurance_policy_no_key unique (enterprise_id, insurer, policy_no),
    constraint insurance_policy_period_check check (end_time > start_time),
    constraint insurance_policy_premium_check check (premium_fen >= 0),
    constraint insurance_policy_kind_check check (kind between 1 and 4)
);

select enable_tenant_rls('insurance_policy');
select manage_updated_at('insurance_policy');

-- The list's order (latest end first) and the expiry states (ranges of end_time).
create index insurance_policy_end_idx
    on insurance_policy (enterprise_id, end_time desc, id desc);
create index insurance_policy_org_idx
    on insurance_policy (enterprise_id, org_id, end_time desc, id desc);
create index insurance_policy_kind_idx
    on insurance_policy (enterprise_id, kind, end_time desc, id desc);
create index insurance_policy_insurer_idx
    on insurance_policy (enterprise_id, insurer, end_time desc, id desc);
create index insurance_policy_plate_idx
    on insurance_policy (enterprise_id, plate_number, end_time desc);
create index insurance_policy_vehicle_idx
    on insurance_policy (enterprise_id, vehicle_id, end_time desc);
create index insurance_policy_no_idx
    on insurance_policy (enterprise_id, policy_no);
