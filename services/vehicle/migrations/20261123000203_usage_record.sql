-- Usage records (carUsedRecord): the rent, purchase, replacement and
-- rent-to-own contracts of a vehicle. A vehicle has at most one open
-- (pending or active) record; the partial unique index enforces it under
-- concurrent writers. Money is in fen.
create table usage_record (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation when the record was made, for reach.
    org_id uuid not null,
    created_by uuid,
    updated_by uuid,
    vehicle_id uuid not null references vehicle (id),
    plate_number text not null,
    vin text not null,
    -- UsageKind: 1 rent, 2 purchase, 3 replacement, 4 rent-to-own.
    kind smallint not null,
    -- UsageStatus: 1 pending, 2 active, 3 ended.
    state smallint not null,
    contract_no text not null,
    counterparty text not null default '',
    start_time timestamptz not null,
    end_time timestamptz,
    -- Rent.
    monthly_rent_fen bigint,
    deposit_fen bigint,
    term_months int,
    payment_day int,
    return_time timestamptz,
    -- Purchase.
    price_fen bigint,
    purchase_tax_fen bigint,
    invoice_no text,
    delivery_time timestamptz,
    -- Replacement (this record's vehicle is the new one).
    replaced_vehicle_id uuid,
    replaced_plate_number text,
    replacement_reason smallint,
    temporary boolean,
    -- Rent-to-own.
    down_payment_fen bigint,
    monthly_payment_fen bigint,
    total_price_fen bigint,
    final_payment_fen bigint,
    paid_periods int,
    overdue_periods int,
    ownership_transfer_time timestamptz,
    attachments jsonb not null default '[]',
    remark text not null default '',
    ended_at timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint usage_record_money_check check (
        coalesce(monthly_rent_fen, 0) >= 0 and coalesce(deposit_fen, 0) >= 0
        and coalesce(price_fen, 0) >= 0 and coalesce(purchase_tax_fen, 0) >= 0
        and coalesce(down_payment_fen, 0) >= 0 and coalesce(monthly_payment_fen, 0) >= 0
        and coalesce(total_price_fen, 0) >= 0 and coalesce(final_payment_fen, 0) >= 0)
);

select enable_tenant_rls('usage_record');
select manage_updated_at('usage_record');

create unique index usage_record_open_vehicle_key on usage_record (vehicle_id)
    where state in (1, 2);

-- One index behind each filter and order of the lists (one list per kind).
create index usage_record_kind_newest_idx
    on usage_record (enterprise_id, kind, created_at desc, id desc);
create index usage_record_newest_idx on usage_record (enterprise_id, created_at desc, id desc);
create index usage_record_org_idx on usage_record (enterprise_id, org_id, created_at desc, id desc);
create index usage_record_creator_idx on usage_record (enterprise_id, created_by);
create index usage_record_vehicle_idx on usage_record (enterprise_id, vehicle_id, created_at desc);
create index usage_record_plate_idx on usage_record (enterprise_id, plate_number);
create index usage_record_vin_idx on usage_record (enterprise_id, vin);
create index usage_record_contract_trgm_idx on usage_record using gin (contract_no public.gin_trgm_ops);
create index usage_record_counterparty_trgm_idx on usage_record using gin (counterparty public.gin_trgm_ops);
