-- Repair and maintenance orders (issue 23, fleetdesk-maintenance::repairs,
-- maintainment): the enterprise's suppliers and item catalogue with its
-- approval threshold (orderConfig), orders from quote to completion, the
-- service each completion records, the monthly statement per supplier and
-- the bill a confirmed statement raises. Money is fen throughout.

-- One row per enterprise: the threshold is the enterprise's, not an
-- organisation's, so this table alone has no org_id.
create table repair_config (
    enterprise_id uuid primary key,
    -- Quotes whose total is above it need an org approval.
    approval_threshold_fen bigint not null,
    updated_by_name text not null default '',
    updated_at timestamptz not null default now(),
    constraint repair_config_threshold_check check (approval_threshold_fen >= 0)
);

select enable_tenant_rls('repair_config');
select manage_updated_at('repair_config');

create table repair_supplier (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The organisation that works with the shop; its statements and bills share it.
    org_id uuid not null,
    name text not null,
    address text not null default '',
    contact_name text not null default '',
    contact_phone text not null default '',
    enabled boolean not null default true,
    remark text not null default '',
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint repair_supplier_name_key unique (enterprise_id, name)
);

select enable_tenant_rls('repair_supplier');
select manage_updated_at('repair_supplier');

create index repair_supplier_org_idx on repair_supplier (enterprise_id, org_id, name);

create table repair_catalogue_item (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    name text not null,
    -- RepairItemKind: 1 part, 2 labour, 3 material, 4 other.
    kind smallint not null,
    part_no text not null default '',
    unit text not null default '',
    unit_price_fen bigint not null,
    enabled boolean not null default true,
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint repair_catalogue_item_name_key unique (enterprise_id, kind, name),
    constraint repair_catalogue_item_price_check check (unit_price_fen >= 0 and kind between 1 and 4)
);

select enable_tenant_rls('repair_catalogue_item');
select manage_updated_at('repair_catalogue_item');

create table repair_order (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation, for reach.
    org_id uuid not null,
    order_no text not null,
    vehicle_id uuid not null references vehicle (id),
    plate_number text not null,
    driver_id uuid,
    driver_name text not null default '',
    contact_name text not null default '',
    contact_phone text not null default '',
    -- RepairKind: 1 maintenance, 2 repair, 3 accident, 4 tyre, 5 battery.
    kind smallint not null,
    -- RepairOrderStatus: 1 awaiting quote, 2 quoted, 3 in repair, 4 completed,
    -- 5 settled, 6 cancelled, 7 awaiting approval.
    state smallint not null default 1,
    fault_description text not null default '',
    fault_images jsonb not null default '[]',
    odometer_m bigint not null default 0,
    shop_id uuid not null references repair_supplier (id),
    appointment_at timestamptz,
    quote_items jsonb not null default '[]',
    quote_total_fen bigint not null default 0,
    quote_at timestamptz,
    quote_remark text not null default '',
    -- Counts quotes: an approval is requested once per quote.
    quote_round int not null default 0,
    quote_reject_reason text not null default '',
    confirmed_total_fen bigint not null default 0,
    confirmed_by_name text not null default '',
    confirm_at timestamptz,
    approval_id text not null default '',
    final_items jsonb not null default '[]',
    final_total_fen bigint not null default 0,
    completed_at timestamptz,
    completed_odometer_m bigint not null default 0,
    completion_images jsonb not null default '[]',
    statement_id uuid,
    record_id uuid,
    accident_id text not null default '',
    cancel_reason text not null default '',
    remark text not null default '',
    created_by uuid,
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint repair_order_no_key unique (enterprise_id, order_no),
    constraint repair_order_state_check check (state between 1 and 7
        and (state not in (4, 5) or completed_at is not null)),
    constraint repair_order_amounts_check check (quote_total_fen >= 0
        and confirmed_total_fen >= 0 and final_total_fen >= 0 and odometer_m >= 0)
);

select enable_tenant_rls('repair_order');
select manage_updated_at('repair_order');

-- The list's order (newest first) and each of its filters.
create index repair_order_newest_idx on repair_order (enterprise_id, created_at desc, id desc);
create index repair_order_state_idx
    on repair_order (enterprise_id, state, created_at desc, id desc);
create index repair_order_org_idx
    on repair_order (enterprise_id, org_id, created_at desc, id desc);
create index repair_order_plate_idx on repair_order (enterprise_id, plate_number, created_at desc);
create index repair_order_shop_idx on repair_order (enterprise_id, shop_id, created_at desc);
create index repair_order_completed_idx
    on repair_order (enterprise_id, completed_at desc) where completed_at is not null;
create index repair_order_statement_idx
    on repair_order (enterprise_id, statement_id) where statement_id is not null;

-- The service a completed order recorded (maintainRecord).
create table repair_record (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    repair_order_id uuid not null references repair_order (id),
    order_no text not null,
    vehicle_id uuid not null references vehicle (id),
    plate_number text not null,
    kind smallint not null,
    shop_id uuid not null references repair_supplier (id),
    completed_at timestamptz not null,
    odometer_m bigint not null default 0,
    items jsonb not null default '[]',
    total_fen bigint not null,
    remark text not null default '',
    created_by uuid,
    created_by_name text not null default '',
    created_at timestamptz not null default now(),
    constraint repair_record_order_key unique (repair_order_id)
);

select enable_tenant_rls('repair_record');

create index repair_record_newest_idx
    on repair_record (enterprise_id, completed_at desc, id desc);
create index repair_record_org_idx
    on repair_record (enterprise_id, org_id, completed_at desc, id desc);
create index repair_record_plate_idx on repair_record (enterprise_id, plate_number, completed_at desc);
create index repair_record_shop_idx on repair_record (enterprise_id, shop_id, completed_at desc);

-- A supplier's monthly statement of completed orders (statement).
create table repair_statement (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The supplier's organisation, for reach.
    org_id uuid not null,
    statement_no text not null,
    shop_id uuid not null references repair_supplier (id),
    -- First day of the month it covers.
    period date not null,
    order_count int not null default 0,
    total_fen bigint not null default 0,
    -- RepairStatementStatus: 1 pending confirmation, 2 confirmed, 3 disputed, 4 billed.
    state smallint not null default 1,
    issued_at timestamptz not null default now(),
    confirmed_by_name text not null default '',
    confirm_at timestamptz,
    dispute_reason text not null default '',
    bill_id uuid,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint repair_statement_no_key unique (enterprise_id, statement_no),
    constraint repair_statement_state_check check (state between 1 and 4
        and (state <> 4 or bill_id is not null))
);

select enable_tenant_rls('repair_statement');
select manage_updated_at('repair_statement');

-- One open statement (pending or disputed) per supplier and month takes the month's orders.
create unique index repair_statement_open_key
    on repair_statement (enterprise_id, shop_id, period) where state in (1, 3);
create index repair_statement_newest_idx
    on repair_statement (enterprise_id, period desc, id desc);
create index repair_statement_state_idx
    on repair_statement (enterprise_id, state, period desc, id desc);
create index repair_statement_org_idx
    on repair_statement (enterprise_id, org_id, period desc, id desc);
create index repair_statement_shop_idx
    on repair_statement (enterprise_id, shop_id, period desc);

alter table repair_order add constraint repair_order_statement_fkey
    foreign key (statement_id) references repair_statement (id);

-- The bill a confirmed statement raises (bill).
create table repair_bill (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    bill_no text not null,
    statement_id uuid not null references repair_statement (id),
    shop_id uuid not null references repair_supplier (id),
    period date not null,
    amount_fen bigint not null,
    paid_fen bigint not null default 0,
    -- RepairBillStatus: 1 unpaid, 2 partially paid, 3 paid, 4 cancelled.
    state smallint not null default 1,
    issued_at timestamptz not null default now(),
    due_at timestamptz not null,
    paid_at timestamptz,
    finance_bill_id text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint repair_bill_no_key unique (enterprise_id, bill_no),
    constraint repair_bill_statement_key unique (statement_id),
    constraint repair_bill_amount_check check (amount_fen >= 0 and paid_fen between 0 and amount_fen
        and state between 1 and 4)
);

select enable_tenant_rls('repair_bill');
select manage_updated_at('repair_bill');

create index repair_bill_newest_idx on repair_bill (enterprise_id, period desc, id desc);
create index repair_bill_state_idx on repair_bill (enterprise_id, state, period desc, id desc);
create index repair_bill_org_idx on repair_bill (enterprise_id, org_id, period desc, id desc);
create index repair_bill_shop_idx on repair_bill (enterprise_id, shop_id, period desc);
create index repair_bill_due_idx on repair_bill (enterprise_id, due_at);
