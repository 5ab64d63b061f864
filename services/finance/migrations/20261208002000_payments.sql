-- Bill payments (billPay) and the bank's callbacks applied to them.
--
-- A payment is one movement of money against one or more bills: from the
-- prepaid balance at once (SUCCEEDED in the transaction that moves it), or
-- through the bank (PENDING until the bank's signed callback settles it).
-- Its allocations say how much of it each bill took; they add up to the
-- payment's amount plus its coupon deduction. The money itself is a ledger
-- transfer keyed by the payment's id (services/finance/src/ledger).

create table bill_payment (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The organisation of its first bill (reach).
    org_id uuid not null,
    -- e.g. ZF20261208-3F2A9C1B: the day and the id's first digits.
    payment_no text not null,
    -- PaymentMethod: CORPORATE_TRANSFER 1, ONLINE_BANKING 2, WECHAT_PAY 3,
    -- ALIPAY 4, PREPAID_BALANCE 5.
    method smallint not null,
    -- PaymentStatus: PENDING 1, SUCCEEDED 2, FAILED 3, CLOSED 4.
    status smallint not null,
    -- Money moved, after the coupon's deduction.
    amount_fen bigint not null check (amount_fen >= 0),
    coupon_id uuid,
    coupon_deduction_fen bigint not null default 0 check (coupon_deduction_fen >= 0),
    payer_name text not null default '',
    payer_bank_name text not null default '',
    payer_masked_account text not null default '',
    -- The bank's order id (online methods), the transaction number users see.
    bank_order_id text not null default '',
    pay_url text not null default '',
    expire_time timestamptz,
    paid_time timestamptz,
    failure_reason text not null default '',
    requested_by uuid,
    requested_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint bill_payment_no_key unique (enterprise_id, payment_no)
);

select enable_tenant_rls('bill_payment');
select manage_updated_at('bill_payment');

-- The list's order (newest first).
create index bill_payment_created_idx on bill_payment (enterprise_id, created_at desc, id desc);

create table bill_payment_allocation (
    payment_id uuid not null references bill_payment (id),
    enterprise_id uuid not null,
    bill_id uuid not null references bill (id),
    bill_no text not null,
    amount_fen bigint not null check (amount_fen > 0),
    primary key (payment_id, bill_id)
);

select enable_tenant_rls('bill_payment_allocation');

-- A bill's payments (bill detail, the list's bill filter, pending payments
-- that keep a bill from being paid twice).
create index bill_payment_allocation_bill_idx on bill_payment_allocation (enterprise_id, bill_id);

-- Each bank callback applied once: its event id is recorded in the
-- transaction that applies it; a repeat finds it and changes nothing.
create table bank_event (
    event_id text primary key,
    enterprise_id uuid not null,
    event_type text not null,
    -- The payment or refund it settled.
    subject_id uuid not null,
    applied_at timestamptz not null default now()
);

select enable_tenant_rls('bank_event');
