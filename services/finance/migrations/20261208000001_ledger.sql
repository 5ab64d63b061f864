-- The double-entry ledger finance's money lives in (docs/ARCHITECTURE.md §8:
-- bills, payments, refunds, coupons). Finance posts through the
-- `fleetdesk-ledger` crate, which energy shares: THIS SCHEMA MUST MATCH THE
-- CRATE'S QUERIES (services/ledger/src/store.rs and verify.rs) and energy's
-- 20261201000001_ledger.sql, table for table and constraint name for
-- constraint name (the crate names `ledger_account_owner_key` and
-- `ledger_transfer_key`). The crate's own database tests run on this file.
--
-- An account's balance changes only through a transfer: the transfer row,
-- one entry per touched account (signed amount and the balance after it) and
-- the new balances are written in one transaction by `fleetdesk_ledger::transfer`.
-- Entries and transfers are immutable (corrections are new transfers), each
-- transfer's entries sum to zero (checked at commit), and no account goes
-- below zero beyond the overdraft granted it, except one whose kind may go
-- negative (a funding source).

create table ledger_account (
    id uuid primary key,
    enterprise_id uuid not null,
    -- Finance's account kind (its stored code; the crate's AccountCode).
    kind smallint not null,
    -- Whose account it is (a customer, a bill, a pending payment); none for
    -- an enterprise's one account of a kind.
    owner_id uuid,
    balance_fen bigint not null default 0,
    -- Set from the kind when opened: only a funding source may go negative.
    may_go_negative boolean not null default false,
    -- Credit granted: the balance may go this far below zero.
    overdraft_fen bigint not null default 0 check (overdraft_fen >= 0),
    -- Bumped by every transfer that touches the account.
    version bigint not null default 0,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint ledger_account_owner_key unique nulls not distinct (enterprise_id, kind, owner_id),
    -- The second line behind the check in `fleetdesk_ledger::transfer`.
    constraint ledger_account_floor_check check (may_go_negative or balance_fen >= -overdraft_fen)
);

select enable_tenant_rls('ledger_account');
select manage_updated_at('ledger_account');

create table ledger_transfer (
    id uuid primary key,
    enterprise_id uuid not null,
    -- Finance's transfer kind (its stored code; the crate's TransferCode).
    kind smallint not null,
    -- The money write's idempotency key: the same key with the same legs
    -- answers this transfer again, with other legs it is refused.
    idempotency_key text not null,
    actor_id uuid,
    actor_name text not null default '',
    memo text not null default '',
    created_at timestamptz not null default now(),
    constraint ledger_transfer_key unique (enterprise_id, kind, idempotency_key)
);

select enable_tenant_rls('ledger_transfer');

create table ledger_entry (
    id uuid primary key,
    enterprise_id uuid not null,
    transfer_id uuid not null references ledger_transfer (id),
    account_id uuid not null references ledger_account (id),
    -- Signed: credit to the account > 0, debit < 0.
    amount_fen bigint not null check (amount_fen <> 0),
    balance_after_fen bigint not null,
    created_at timestamptz not null default now(),
    constraint ledger_entry_account_once unique (transfer_id, account_id)
);

select enable_tenant_rls('ledger_entry');

-- An account's statement, newest first; and the sum that must equal its balance.
create index ledger_entry_account_idx on ledger_entry (account_id, created_at desc, id desc);
-- Newest transfers of a kind (reports, corrections).
create index ledger_transfer_newest_idx on ledger_transfer (enterprise_id, kind, created_at desc, id desc);

-- Entries and transfers are never changed or removed: a correction is a new transfer.
create function ledger_immutable() returns trigger
language plpgsql as $$
begin
    raise exception '% rows are immutable; post a correcting transfer', tg_table_name
        using errcode = 'integrity_constraint_violation';
end
$$;

create trigger ledger_entry_immutable before update or delete on ledger_entry
for each row execute function ledger_immutable();
create trigger ledger_entry_no_truncate before truncate on ledger_entry
for each statement execute function ledger_immutable();
create trigger ledger_transfer_immutable before update or delete on ledger_transfer
for each row execute function ledger_immutable();
create trigger ledger_transfer_no_truncate before truncate on ledger_transfer
for each statement execute function ledger_immutable();

-- At commit, each transfer a new entry belongs to has at least two entries
-- summing to zero: money is only ever moved, never made or lost.
create function ledger_transfer_balanced() returns trigger
language plpgsql as $$
declare
    total bigint;
    entries int;
begin
    select coalesce(sum(amount_fen), 0), count(*) into total, entries
    from ledger_entry where transfer_id = new.transfer_id;
    if total <> 0 or entries < 2 then
        raise exception 'ledger transfer % does not balance (sum %, % entries)',
            new.transfer_id, total, entries
            using errcode = 'integrity_constraint_violation';
    end if;
    return null;
end
$$;

create constraint trigger ledger_entry_balanced after insert on ledger_entry
deferrable initially deferred
for each row execute function ledger_transfer_balanced();
