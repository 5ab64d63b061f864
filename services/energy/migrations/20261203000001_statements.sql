-- Monthly reconciliation statements (chargeReconciliation), and the indexes
-- the dashboard and the charging behaviour analysis read sessions by.
--
-- A statement is kept as issued: its figures, its organisation and card
-- lines, the sessions it holds and its workbook. A session is on at most
-- one issued statement (the link's key), so late settlements land on a
-- later statement instead of changing an issued one, and a confirmed
-- statement refuses every change to its figures, lines and sessions.

create table reconciliation_statement (
    id uuid primary key,
    enterprise_id uuid not null,
    -- e.g. CS202611-3F2A9C1B: the month and the statement id's first digits.
    statement_no text not null,
    -- yyyymm, Asia/Shanghai.
    month int not null check (month % 100 between 1 and 12),
    -- GENERATING 1, PENDING_CONFIRMATION 2, CONFIRMED 3, DISPUTED 4, DRAFT 5.
    status smallint not null,
    session_count bigint not null default 0,
    card_count int not null default 0,
    energy_wh bigint not null default 0,
    electricity_fen bigint not null default 0,
    service_fee_fen bigint not null default 0,
    parking_fee_fen bigint not null default 0,
    discount_fen bigint not null default 0,
    uncollected_fen bigint not null default 0,
    refunded_fen bigint not null default 0,
    total_fen bigint not null default 0,
    -- The ledger's CAPTURE transfers of the statement's sessions.
    ledger_captured_fen bigint not null default 0,
    -- The workbook in the object store ('' before the first build).
    file_key text not null default '',
    file_name text not null default '',
    file_size bigint not null default 0,
    -- Bumped by every build (a draft's rebuild, the issue, a reissue).
    version int not null default 0,
    generated_at timestamptz,
    confirmed_by uuid,
    confirmed_by_name text not null default '',
    confirm_time timestamptz,
    dispute_reason text not null default '',
    finance_bill_id text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    -- One statement per enterprise and month; also the list's order (month desc).
    constraint reconciliation_statement_month_key unique (enterprise_id, month),
    constraint reconciliation_statement_no_key unique (statement_no)
);

select enable_tenant_rls('reconciliation_statement');
select manage_updated_at('reconciliation_statement');

-- The month-end job: enterprises whose month has no issued statement yet.
create index reconciliation_statement_issued_idx on reconciliation_statement (month, enterprise_id)
    where status <> 5;

-- One organisation's figures (the sessions of its cards).
create table reconciliation_org_line (
    statement_id uuid not null references reconciliation_statement (id) on delete cascade,
    enterprise_id uuid not null,
    org_id uuid not null,
    org_name text not null default '',
    session_count bigint not null,
    card_count int not null,
    energy_wh bigint not null,
    electricity_fen bigint not null,
    service_fee_fen bigint not null,
    parking_fee_fen bigint not null,
    discount_fen bigint not null,
    uncollected_fen bigint not null,
    refunded_fen bigint not null,
    total_fen bigint not null,
    primary key (statement_id, org_id)
);

select enable_tenant_rls('reconciliation_org_line');

-- One card's figures within one organisation.
create table reconciliation_card_line (
    statement_id uuid not null references reconciliation_statement (id) on delete cascade,
    enterprise_id uuid not null,
    card_id uuid not null,
    card_no text not null,
    org_id uuid not null,
    org_name text not null default '',
    plate_number text not null default '',
    driver_name text not null default '',
    session_count bigint not null,
    energy_wh bigint not null,
    electricity_fen bigint not null,
    service_fee_fen bigint not null,
    parking_fee_fen bigint not null,
    discount_fen bigint not null,
    uncollected_fen bigint not null,
    refunded_fen bigint not null,
    total_fen bigint not null,
    primary key (statement_id, card_id, org_id)
);

select enable_tenant_rls('reconciliation_card_line');

-- ListReconciliationCardLines: by card number within a statement.
create index reconciliation_card_line_no_idx on reconciliation_card_line (statement_id, card_no, card_id, org_id);

-- The sessions an issued statement holds; a session is on one statement at most.
create table reconciliation_statement_session (
    session_id uuid primary key references charging_session (id),
    statement_id uuid not null references reconciliation_statement (id),
    enterprise_id uuid not null
);

select enable_tenant_rls('reconciliation_statement_session');

create index reconciliation_statement_session_idx on reconciliation_statement_session (statement_id, session_id);

-- A confirmed statement is what the enterprise agreed to: its figures,
-- workbook, lines and sessions never change (finance may still note its
-- bill on it).
create function reconciliation_statement_frozen() returns trigger
language plpgsql as $$
begin
    if tg_op = 'DELETE' then
        if old.status = 3 then
            raise exception 'reconciliation statement % is confirmed and cannot be removed', old.id
                using errcode = 'integrity_constraint_violation';
        end if;
        return old;
    end if;
    if old.status = 3 and (
        row(new.month, new.status, new.session_count, new.card_count, new.energy_wh,
            new.electricity_fen, new.service_fee_fen, new.parking_fee_fen, new.discount_fen,
            new.uncollected_fen, new.refunded_fen, new.total_fen, new.ledger_captured_fen,
            new.file_key, new.version, new.confirmed_by, new.confirm_time)
        is distinct from
        row(old.month, old.status, old.session_count, old.card_count, old.energy_wh,
            old.electricity_fen, old.service_fee_fen, old.parking_fee_fen, old.discount_fen,
            old.uncollected_fen, old.refunded_fen, old.total_fen, old.ledger_captured_fen,
            old.file_key, old.version, old.confirmed_by, old.confirm_time))
    then
        raise exception 'reconciliation statement % is confirmed and cannot change', old.id
            using errcode = 'integrity_constraint_violation';
    end if;
    return new;
end
$$;

create trigger reconciliation_statement_frozen before update or delete on reconciliation_statement
for each row execute function reconciliation_statement_frozen();

create function reconciliation_part_frozen() returns trigger
language plpgsql as $$
declare
    target uuid;
begin
    if tg_op = 'INSERT' then
        target := new.statement_id;
    else
        target := old.statement_id;
    end if;
    if exists (select 1 from reconciliation_statement where id = target and status = 3) then
        raise exception 'reconciliation statement % is confirmed and cannot change', target
            using errcode = 'integrity_constraint_violation';
    end if;
    if tg_op = 'DELETE' then
        return old;
    end if;
    return new;
end
$$;

create trigger reconciliation_org_line_frozen before insert or update or delete on reconciliation_org_line
for each row execute function reconciliation_part_frozen();
create trigger reconciliation_card_line_frozen before insert or update or delete on reconciliation_card_line
for each row execute function reconciliation_part_frozen();
create trigger reconciliation_statement_session_frozen
before insert or update or delete on reconciliation_statement_session
for each row execute function reconciliation_part_frozen();

-- The dashboard's period figures in one index-only pass over the range:
-- every column its grouping reads is in the index.
create index charging_session_figures_idx on charging_session (enterprise_id, start_time)
    include (status, org_id, station_id, vehicle_id, energy_wh, electricity_fen, service_fee_fen,
             parking_fee_fen, discount_fen, total_fen);

-- The dashboard's sessions in progress (a small part of all).
create index charging_session_charging_idx on charging_session (enterprise_id, org_id) where status = 1;

-- The behaviour analysis per vehicle, and the plates of the dashboard's top vehicles.
create index charging_session_vehicle_idx on charging_session (enterprise_id, vehicle_id, start_time desc)
    where vehicle_id is not null;

-- Minutes after 00:00 Asia/Shanghai of a moment: where it falls in a
-- tariff's day (`tariff_period` is in these minutes).
create function shanghai_minute(at timestamptz) returns int
language sql stable as $$
    select (extract(hour from at at time zone 'Asia/Shanghai') * 60
            + extract(minute from at at time zone 'Asia/Shanghai'))::int
$$;
