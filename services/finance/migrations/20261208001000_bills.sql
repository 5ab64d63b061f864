-- Bills (billManagement) and orders (orderManage, the order centre).
--
-- A bill is money the enterprise owes for one thing, raised once per source:
-- (enterprise, source_service, source_id) is unique, so a repeated raise
-- (a redelivered event, a retried call) finds the first bill. Its lines add
-- up to its amount, checked at commit by a deferred constraint trigger (a
-- bill and its lines are written in one transaction). Payable, outstanding
-- and the invoice state follow from the amounts (generated columns), so they
-- can never drift; overdue is not stored at all: it is "unpaid or partly
-- paid, due before now", asked of the due index at read time, so no job has
-- to keep a flag current and no reader sees a stale one.

create table enterprise_order (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    -- e.g. DD20261208-3F2A9C1B: the day placed and the id's first digits.
    order_no text not null,
    -- OrderKind: VEHICLE_RENT 1 ... OTHER 8.
    kind smallint not null,
    -- OrderStatus: PENDING_PAYMENT 1, PAID 2, FULFILLING 3, COMPLETED 4,
    -- CANCELLED 5, REFUNDING 6, REFUNDED 7.
    status smallint not null,
    title text not null,
    total_fen bigint not null check (total_fen >= 0),
    discount_fen bigint not null default 0 check (discount_fen between 0 and total_fen),
    payable_fen bigint generated always as (total_fen - discount_fen) stored,
    paid_fen bigint not null default 0 check (paid_fen >= 0),
    refunded_fen bigint not null default 0 check (refunded_fen between 0 and paid_fen),
    coupon_id uuid,
    contract_no text not null default '',
    source_service text not null,
    source_id text not null,
    placed_by uuid,
    placed_by_name text not null default '',
    placed_at timestamptz not null default now(),
    paid_at timestamptz,
    completed_at timestamptz,
    payment_deadline timestamptz not null,
    cancel_reason text not null default '',
    remark text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    updated_by_name text not null default '',
    constraint enterprise_order_source_key unique (enterprise_id, source_service, source_id),
    constraint enterprise_order_no_key unique (enterprise_id, order_no)
);

select enable_tenant_rls('enterprise_order');
select manage_updated_at('enterprise_order');

-- The list's order (newest placed first) and its time filter.
create index enterprise_order_placed_idx on enterprise_order (enterprise_id, placed_at desc, id desc);
create index enterprise_order_paid_idx on enterprise_order (enterprise_id, paid_at desc)
    where paid_at is not null;

create table order_item (
    order_id uuid not null references enterprise_order (id) on delete cascade,
    enterprise_id uuid not null,
    line_no int not null,
    name text not null,
    sku text not null default '',
    quantity int not null check (quantity > 0),
    unit_price_fen bigint not null check (unit_price_fen >= 0),
    amount_fen bigint not null check (amount_fen = quantity * unit_price_fen),
    vehicle_id uuid,
    plate_number text not null default '',
    primary key (order_id, line_no)
);

select enable_tenant_rls('order_item');

-- The plate filter of the order list.
create index order_item_plate_idx on order_item (enterprise_id, plate_number)
    where plate_number <> '';

create table bill (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    -- e.g. ZD202611-3F2A9C1B: the period and the id's first digits.
    bill_no text not null,
    -- Channel: STANDARD 1, B2B 2.
    channel smallint not null,
    -- BillKind: RENT 1 ... OTHER 11.
    kind smallint not null,
    -- BillStatus: PENDING_CONFIRMATION 1, UNPAID 2, PARTIALLY_PAID 3, PAID 4, CANCELLED 5.
    status smallint not null,
    title text not null,
    -- yyyymm, Asia/Shanghai: the month the bill belongs to.
    period int not null check (period % 100 between 1 and 12),
    order_id uuid references enterprise_order (id),
    source_service text not null,
    source_id text not null,
    -- Sum of the lines (checked at commit).
    amount_fen bigint not null check (amount_fen >= 0),
    discount_fen bigint not null default 0 check (discount_fen between 0 and amount_fen),
    late_fee_fen bigint not null default 0 check (late_fee_fen >= 0),
    payable_fen bigint generated always as (amount_fen - discount_fen + late_fee_fen) stored,
    paid_fen bigint not null default 0 check (paid_fen >= 0),
    refunded_fen bigint not null default 0 check (refunded_fen between 0 and paid_fen),
    invoiced_fen bigint not null default 0 check (invoiced_fen >= 0),
    outstanding_fen bigint generated always as
        (greatest(amount_fen - discount_fen + late_fee_fen - paid_fen, 0)) stored,
    -- InvoiceState: NOT_INVOICED 1, PARTIALLY_INVOICED 2, INVOICED 3.
    invoice_state smallint generated always as (case
        when invoiced_fen = 0 then 1
        when invoiced_fen >= paid_fen - refunded_fen then 3
        else 2 end) stored,
    issue_time timestamptz not null,
    due_time timestamptz not null,
    paid_time timestamptz,
    -- B2B reconciliation: who confirmed, or the last dispute.
    confirmed_by uuid,
    confirmed_by_name text not null default '',
    confirm_time timestamptz,
    dispute_reason text not null default '',
    disputed_at timestamptz,
    attachments jsonb not null default '[]',
    remark text not null default '',
    created_by uuid,
    created_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    updated_by_name text not null default '',
    constraint bill_source_key unique (enterprise_id, source_service, source_id),
    constraint bill_no_key unique (enterprise_id, bill_no),
    constraint bill_paid_within_payable check (paid_fen <= amount_fen - discount_fen + late_fee_fen)
);

select enable_tenant_rls('bill');
select manage_updated_at('bill');

-- The list's order (newest issued first), also its export's keyset.
create index bill_issue_idx on bill (enterprise_id, issue_time desc, id desc);
-- Monthly bills and the dashboard: one enterprise's bills by period.
create index bill_period_idx on bill (enterprise_id, period)
    include (status, kind, org_id, channel, payable_fen, paid_fen, outstanding_fen,
             refunded_fen, invoiced_fen, due_time);
-- Overdue and due-soon: the bills still owed, by due time.
create index bill_owed_due_idx on bill (enterprise_id, due_time) where status in (2, 3);
create index bill_order_idx on bill (order_id) where order_id is not null;

create table bill_line (
    bill_id uuid not null references bill (id) on delete cascade,
    enterprise_id uuid not null,
    line_no int not null,
    description text not null,
    vehicle_id uuid,
    plate_number text not null default '',
    period_start timestamptz,
    period_end timestamptz,
    quantity int not null default 1 check (quantity >= 0),
    unit_price_fen bigint not null default 0,
    amount_fen bigint not null check (amount_fen >= 0),
    tax_rate_bp int not null default 0 check (tax_rate_bp between 0 and 10000),
    -- LineSource: USAGE_RECORD 1, CHARGING_STATEMENT 2, REPAIR_BILL 3, ORDER 4, OTHER 5;
    -- with the id of that record in its service.
    source_kind smallint not null,
    source_id text not null default '',
    primary key (bill_id, line_no)
);

select enable_tenant_rls('bill_line');

-- The plate filter of the bill list.
create index bill_line_plate_idx on bill_line (enterprise_id, plate_number)
    where plate_number <> '';

-- A bill's lines add up to its amount, checked once per transaction at
-- commit (so a bill and its lines can be written in either order).
create function check_bill_lines() returns trigger
language plpgsql as $$
declare
    target uuid;
    expected bigint;
    summed bigint;
begin
    if tg_table_name = 'bill' then
        target := new.id;
    elsif tg_op = 'DELETE' then
        target := old.bill_id;
    else
        target := new.bill_id;
    end if;
    select amount_fen into expected from bill where id = target;
    if not found then
        return null;
    end if;
    select coalesce(sum(amount_fen), 0) into summed from bill_line where bill_id = target;
    if summed <> expected then
        raise exception 'bill % lines sum to % fen, its amount is % fen', target, summed, expected
            using errcode = '23514', constraint = 'bill_lines_sum';
    end if;
    return null;
end
$$;

create constraint trigger bill_lines_sum after insert or update of amount_fen on bill
    deferrable initially deferred for each row execute function check_bill_lines();
create constraint trigger bill_line_sum after insert or update or delete on bill_line
    deferrable initially deferred for each row execute function check_bill_lines();
