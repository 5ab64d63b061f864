-- Coupons (myCoupons): granted to an enterprise by the operator, used once
-- on a payment.
--
-- A grant is keyed by (enterprise, campaign, coupon_no): a repeated grant
-- finds the first coupon. Coupons belong to the whole enterprise (no
-- organisation: the operator grants them to the tenant, and whoever pays
-- its bills may use them), so the table has no org_id and no reach.
--
-- One use: a payment takes a coupon with one conditional update (status
-- AVAILABLE → LOCKED or USED, naming the payment); a second payment racing
-- for it finds the status changed and takes nothing. The check constraints
-- keep a held coupon's use consistent whatever the code does.
--
-- Expiry is not stored: an AVAILABLE coupon past valid_until reads as
-- EXPIRED (status 4 is never written), so no job has to keep it current.

create table coupon (
    id uuid primary key,
    enterprise_id uuid not null,
    campaign text not null,
    coupon_no text not null,
    name text not null,
    -- CouponKind: AMOUNT_OFF 1, PERCENT_OFF 2.
    kind smallint not null check (kind in (1, 2)),
    face_value_fen bigint not null default 0 check (face_value_fen >= 0),
    percent_off_bp int not null default 0 check (percent_off_bp between 0 and 10000),
    max_discount_fen bigint not null default 0 check (max_discount_fen >= 0),
    min_spend_fen bigint not null default 0 check (min_spend_fen >= 0),
    -- BillKind and OrderKind codes; empty = any.
    applicable_bill_kinds smallint[] not null default '{}',
    applicable_order_kinds smallint[] not null default '{}',
    valid_from timestamptz not null,
    valid_until timestamptz not null,
    -- CouponStatus as stored: AVAILABLE 1, LOCKED 2, USED 3, VOIDED 5.
    status smallint not null default 1 check (status in (1, 2, 3, 5)),
    issued_time timestamptz not null default now(),
    used_payment_id uuid,
    used_order_id uuid,
    used_time timestamptz,
    used_discount_fen bigint not null default 0 check (used_discount_fen >= 0),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint coupon_grant_key unique (enterprise_id, campaign, coupon_no),
    constraint coupon_validity check (valid_until > valid_from),
    -- Held or used: by one payment or order, with what it took off.
    constraint coupon_use check (
        (status in (2, 3)) = (used_payment_id is not null or used_order_id is not null)
        and (status in (2, 3)) = (used_time is not null)
        and (status in (2, 3) or used_discount_fen = 0)
    )
);

select enable_tenant_rls('coupon');
select manage_updated_at('coupon');

-- The list's order (newest granted first).
create index coupon_issued_idx on coupon (enterprise_id, issued_time desc, id desc);
-- The validity filter and the usable-now lists.
create index coupon_valid_until_idx on coupon (enterprise_id, valid_until);
-- Releasing what a failed payment held.
create index coupon_payment_idx on coupon (used_payment_id) where used_payment_id is not null;
