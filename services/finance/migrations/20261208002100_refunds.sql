-- Refunds (billRefund, billRefundSure, refundRecord): money going back to
-- the enterprise for a paid bill. A bill never has more refunded, or in
-- flight, than was paid (checked under the bill's row lock; bill.refunded_fen
-- counts only what was paid out). The money is a ledger transfer keyed by
-- the refund's id; a bank refund is two-phase over the refund's HOLD account.

create table refund (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The bill's organisation (reach).
    org_id uuid not null,
    -- e.g. TK20261208-3F2A9C1B.
    refund_no text not null,
    -- Channel: STANDARD 1, B2B 2.
    channel smallint not null,
    bill_id uuid not null references bill (id),
    bill_no text not null,
    order_id uuid,
    -- The bank payment refunded (ORIGINAL_ROUTE through the bank).
    payment_id uuid references bill_payment (id),
    -- RefundReason: OVERPAYMENT 1 ... OTHER 5.
    reason smallint not null,
    reason_detail text not null default '',
    requested_fen bigint not null check (requested_fen > 0),
    approved_fen bigint not null default 0 check (approved_fen between 0 and requested_fen),
    refunded_fen bigint not null default 0 check (refunded_fen between 0 and approved_fen),
    -- RefundMethod: ORIGINAL_ROUTE 1, BANK_TRANSFER 2, PREPAID_BALANCE 3.
    method smallint not null,
    payee_name text not null default '',
    payee_bank_name text not null default '',
    payee_masked_account text not null default '',
    -- RefundStatus: PENDING_REVIEW 1, PENDING_CONFIRMATION 2, PROCESSING 3,
    -- COMPLETED 4, REJECTED 5, CANCELLED 6, FAILED 7.
    status smallint not null,
    applicant_id uuid,
    applicant_name text not null default '',
    apply_time timestamptz not null default now(),
    reviewer_name text not null default '',
    review_time timestamptz,
    reject_reason text not null default '',
    confirmed_by_name text not null default '',
    confirm_time timestamptz,
    complete_time timestamptz,
    -- The bank's refund id.
    transaction_no text not null default '',
    failure_reason text not null default '',
    cancel_reason text not null default '',
    attachments jsonb not null default '[]',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    updated_by_name text not null default '',
    constraint refund_no_key unique (enterprise_id, refund_no)
);

select enable_tenant_rls('refund');
select manage_updated_at('refund');

-- The records' order (newest applied first).
create index refund_apply_idx on refund (enterprise_id, apply_time desc, id desc);
-- A bill's refunds in flight (the bound on a new one).
create index refund_bill_idx on refund (enterprise_id, bill_id);
