-- A charging session's cost by what it paid for, as the platform's CDR
-- itemises it (OCPI total_energy_cost, total_time_cost, total_parking_cost,
-- total_fixed_cost, total_reservation_cost, and our service fee): each part
-- is booked as itself, on the session, on every statement line and in the
-- ledger (one revenue account per part, credited by the capture's legs).
-- Before this, time, fixed and reservation costs were booked as electricity.

alter table charging_session
    add column time_fee_fen bigint not null default 0,
    add column fixed_fee_fen bigint not null default 0,
    add column reservation_fee_fen bigint not null default 0,
    -- The cost without VAT, as the platform sent it (total_cost.excl_vat);
    -- cost_fen is with VAT (incl_vat), what the enterprise pays.
    add column cost_excl_vat_fen bigint not null default 0;

alter table reconciliation_statement
    add column time_fee_fen bigint not null default 0,
    add column fixed_fee_fen bigint not null default 0,
    add column reservation_fee_fen bigint not null default 0;

alter table reconciliation_org_line
    add column time_fee_fen bigint not null default 0,
    add column fixed_fee_fen bigint not null default 0,
    add column reservation_fee_fen bigint not null default 0;

alter table reconciliation_card_line
    add column time_fee_fen bigint not null default 0,
    add column fixed_fee_fen bigint not null default 0,
    add column reservation_fee_fen bigint not null default 0;

-- Corrections the platform sent after a session was settled: a credit CDR
-- (OCPI `credit`, negative total_cost) reverses the settlement's capture
-- with a CORRECTION transfer, never an edit of the first one.
create table charging_correction (
    -- The credit CDR's (party, id).
    party_id text not null,
    cdr_id text not null,
    enterprise_id uuid not null,
    session_id uuid not null references charging_session (id),
    -- The CDR it credits.
    credited_cdr_id text not null,
    -- What went back to the card (fen, VAT included).
    amount_fen bigint not null check (amount_fen >= 0),
    transfer_id uuid,
    created_at timestamptz not null default now(),
    primary key (party_id, cdr_id),
    -- A settlement is credited once.
    constraint charging_correction_credited_key unique (party_id, credited_cdr_id)
);

select enable_tenant_rls('charging_correction');

create index charging_correction_session_idx on charging_correction (session_id);
