-- Charging opening, charging accounts, balance allocations, cards and their
-- amount changes. Balances live in the ledger (20261201000001_ledger.sql):
-- a charging account and a card each own one ledger account.
create extension if not exists pg_trgm schema public;

-- Whether an enterprise has charging: NOT_OPENED 1, APPLYING 2, OPENED 3.
-- `version` orders the ChargingOpenChanged events org keeps the flags by.
create table charging_opening (
    enterprise_id uuid primary key,
    state smallint not null,
    version bigint not null default 1,
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('charging_opening');
select manage_updated_at('charging_opening');

-- Applications to open charging: PENDING 1, CONTACTED 2, APPROVED 3, REJECTED 4.
create table charging_open_application (
    id uuid primary key,
    enterprise_id uuid not null,
    enterprise_name text not null default '',
    applicant_id uuid,
    applicant_name text not null default '',
    status smallint not null,
    apply_time timestamptz not null default now(),
    contact_time timestamptz,
    handler_name text not null default '',
    decide_time timestamptz,
    reject_reason text not null default '',
    remark text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('charging_open_application');
select manage_updated_at('charging_open_application');

-- At most one undecided application per enterprise (a second apply is refused).
create unique index charging_open_application_open_key
    on charging_open_application (enterprise_id) where status in (1, 2);
-- The enterprise's own list, and the operator's list over every enterprise.
create index charging_open_application_newest_idx
    on charging_open_application (enterprise_id, apply_time desc, id desc);
create index charging_open_application_all_newest_idx
    on charging_open_application (apply_time desc, id desc);
create index charging_open_application_status_idx
    on charging_open_application (status, apply_time desc, id desc);

-- The account tree: MAIN (kind 1, the root organisation's) and one
-- ORGANIZATION account (kind 2) per organisation below it, each under its
-- parent organisation's account. The id is its ledger account's.
-- Status: ACTIVE 1, FROZEN 2, CLOSED 3.
create table charging_account (
    id uuid primary key references ledger_account (id),
    enterprise_id uuid not null,
    kind smallint not null,
    -- None only for a MAIN account opened before the organisation tree was known.
    org_id uuid,
    parent_id uuid references charging_account (id),
    status smallint not null default 1,
    low_balance_threshold_fen bigint not null default 0 check (low_balance_threshold_fen >= 0),
    -- Lifetime money received (top-ups for MAIN, allocations otherwise)
    -- and spent on charging (kept by the sessions' captures).
    total_received_fen bigint not null default 0,
    total_consumed_fen bigint not null default 0,
    created_by uuid,
    updated_by uuid,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint charging_account_org_key unique (enterprise_id, org_id)
);

select enable_tenant_rls('charging_account');
select manage_updated_at('charging_account');

create unique index charging_account_main_key on charging_account (enterprise_id) where kind = 1;
create index charging_account_parent_idx on charging_account (enterprise_id, parent_id);

-- Every allocation (parent → direct child) and reclaim (child → parent):
-- ALLOCATE 1, RECLAIM 2. Organisation names are copied as they were.
create table balance_allocation (
    id uuid primary key,
    enterprise_id uuid not null,
    transfer_id uuid not null references ledger_transfer (id),
    direction smallint not null,
    from_account_id uuid not null references charging_account (id),
    to_account_id uuid not null references charging_account (id),
    from_org_id uuid,
    to_org_id uuid,
    from_org_name text not null default '',
    to_org_name text not null default '',
    amount_fen bigint not null check (amount_fen > 0),
    from_balance_after_fen bigint not null,
    to_balance_after_fen bigint not null,
    operator_id uuid,
    operator_name text not null default '',
    remark text not null default '',
    created_at timestamptz not null default now(),
    constraint balance_allocation_transfer_key unique (transfer_id, to_account_id)
);

select enable_tenant_rls('balance_allocation');

-- The record list (newest first) and each of its filters.
create index balance_allocation_newest_idx on balance_allocation (enterprise_id, created_at desc, id desc);
create index balance_allocation_from_idx on balance_allocation (enterprise_id, from_account_id, created_at desc, id desc);
create index balance_allocation_to_idx on balance_allocation (enterprise_id, to_account_id, created_at desc, id desc);
create index balance_allocation_from_org_idx on balance_allocation (enterprise_id, from_org_id, created_at desc, id desc);
create index balance_allocation_to_org_idx on balance_allocation (enterprise_id, to_org_id, created_at desc, id desc);
create index balance_allocation_direction_idx on balance_allocation (enterprise_id, direction, created_at desc, id desc);
create index balance_allocation_operator_idx on balance_allocation (enterprise_id, operator_id);

-- Charging cards. kind: PHYSICAL 1, VIRTUAL 2; holder_kind: VEHICLE 1,
-- DRIVER 2; status: ACTIVE 1, FROZEN 2, LOST 3, CANCELLED 4; budget_period:
-- NONE 1, DAILY 2, WEEKLY 3, MONTHLY 4. The balance is the card's ledger
-- account; plate and driver name are copies for lists and plate lookups.
create table charging_card (
    id uuid primary key,
    enterprise_id uuid not null,
    card_no text not null,
    org_id uuid not null,
    account_id uuid not null references charging_account (id),
    ledger_account_id uuid not null references ledger_account (id),
    kind smallint not null,
    holder_kind smallint not null,
    vehicle_id uuid,
    plate_number text not null default '',
    driver_id uuid,
    driver_name text not null default '',
    status smallint not null default 1,
    budget_period smallint not null default 1,
    budget_limit_fen bigint not null default 0 check (budget_limit_fen >= 0),
    per_session_limit_fen bigint not null default 0 check (per_session_limit_fen >= 0),
    total_consumed_fen bigint not null default 0,
    issued_at timestamptz not null default now(),
    last_used_at timestamptz,
    status_reason text not null default '',
    remark text not null default '',
    created_by uuid,
    updated_by uuid,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint charging_card_no_key unique (enterprise_id, card_no)
);

select enable_tenant_rls('charging_card');
select manage_updated_at('charging_card');

-- A plate has one usable card: the one a plate-scan start charges.
create unique index charging_card_plate_key on charging_card (enterprise_id, plate_number)
    where plate_number <> '' and status in (1, 2);
-- The card list (newest issued first) and each of its filters.
create index charging_card_newest_idx on charging_card (enterprise_id, issued_at desc, id desc);
create index charging_card_org_idx on charging_card (enterprise_id, org_id, issued_at desc, id desc);
create index charging_card_account_idx on charging_card (enterprise_id, account_id, issued_at desc, id desc);
create index charging_card_status_idx on charging_card (enterprise_id, status, issued_at desc, id desc);
create index charging_card_plate_idx on charging_card (enterprise_id, plate_number);
create index charging_card_vehicle_idx on charging_card (enterprise_id, vehicle_id);
create index charging_card_driver_idx on charging_card (enterprise_id, driver_id);
create index charging_card_creator_idx on charging_card (enterprise_id, created_by);
-- Session authorisation by a card number or a plate, before the enterprise is known.
create index charging_card_no_lookup_idx on charging_card (card_no);
create index charging_card_plate_lookup_idx on charging_card (plate_number) where status in (1, 2);
create index charging_card_driver_name_trgm_idx on charging_card using gin (driver_name public.gin_trgm_ops);

-- Stations a card may charge at; a card without rows charges anywhere.
create table charging_card_station (
    enterprise_id uuid not null,
    card_id uuid not null references charging_card (id) on delete cascade,
    station_id uuid not null,
    primary key (card_id, station_id)
);

select enable_tenant_rls('charging_card_station');

-- Every change of a card's balance (countChangeRecord): TOP_UP 1,
-- WITHDRAW 2, CONSUME 3, REFUND 4, CANCEL_RETURN 5. Card number, plate,
-- driver and organisation are copied as they were.
create table card_amount_change (
    id uuid primary key,
    enterprise_id uuid not null,
    card_id uuid not null references charging_card (id),
    transfer_id uuid references ledger_transfer (id),
    kind smallint not null,
    amount_fen bigint not null check (amount_fen > 0),
    balance_before_fen bigint not null,
    balance_after_fen bigint not null,
    org_id uuid not null,
    org_name text not null default '',
    card_no text not null,
    plate_number text not null default '',
    driver_name text not null default '',
    session_id uuid,
    operator_id uuid,
    operator_name text not null default '',
    remark text not null default '',
    created_at timestamptz not null default now(),
    constraint card_amount_change_transfer_key unique (transfer_id, card_id)
);

select enable_tenant_rls('card_amount_change');

create index card_amount_change_newest_idx on card_amount_change (enterprise_id, created_at desc, id desc);
create index card_amount_change_card_idx on card_amount_change (enterprise_id, card_id, created_at desc, id desc);
create index card_amount_change_org_idx on card_amount_change (enterprise_id, org_id, created_at desc, id desc);
create index card_amount_change_kind_idx on card_amount_change (enterprise_id, kind, created_at desc, id desc);
create index card_amount_change_card_no_idx on card_amount_change (enterprise_id, card_no, created_at desc, id desc);
create index card_amount_change_plate_idx on card_amount_change (enterprise_id, plate_number, created_at desc, id desc);
create index card_amount_change_operator_idx on card_amount_change (enterprise_id, operator_id);
