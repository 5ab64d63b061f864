//! Refunds over the real gRPC server and the bank stand-in: never more
//! than paid less refunded and in flight, 100 parallel identical requests
//! with one key (one refund), to the balance at once, back through the
//! bank in two phases (a success pays the hold out once however often it
//! is repeated; a failure voids it), cancelling, another tenant, and a
//! seeded random run of payments and refunds after each step of which
//! the ledger's invariants hold and no bill has more refunded than paid.

use crate::support;

use fleetdesk_bank_standin::Outcome;
use fleetdesk_kit::ErrorCode;
use fleetdesk_proto::finance::v1 as pb;
use support::bank::{a_hundred_at_once, banked};
use support::{Seeded, Stack, Tenant, err};

/// Stored transfer kinds (finance's ledger::TransferKind).
const BALANCE_REFUND: i16 = 5;
const REFUND_PAYOUT: i16 = 7;
const REFUND_VOID: i16 = 8;

fn apply(
    bill: &pb::Bill,
    fen: i64,
    method: pb::RefundMethod,
    key: &str,
) -> pb::CreateRefundRequest {
    pb::CreateRefundRequest {
        channel: pb::Channel::Standard as i32,
        bill_id: bill.id.clone(),
        reason: pb::RefundReason::Overpayment as i32,
        reason_detail: "多付".to_owned(),
        amount_fen: fen,
        method: method as i32,
        payee_name: String::new(),
        payee_bank_name: String::new(),
        payee_account: String::new(),
        attachments: Vec::new(),
        idempotency_key: key.to_owned(),
    }
}

impl Stack {
    async fn refund(
        &self,
        t: &Tenant,
        req: pb::CreateRefundRequest,
    ) -> Result<pb::Refund, tonic::Status> {
        self.client
            .clone()
            .create_refund(self.req(t, req))
            .await
            .map(|r| r.into_inner().refund.unwrap())
    }

    async fn confirm(
        &self,
        t: &Tenant,
        r: &pb::Refund,
        key: &str,
    ) -> Result<pb::Refund, tonic::Status> {
        self.client
            .clone()
            .confirm_refund(self.req(
                t,
                pb::ConfirmRefundRequest {
                    refund_id: r.id.clone(),
                    expected_amount_fen: r.requested_fen,
                    method: pb::RefundMethod::Unspecified as i32,
                    payee_name: String::new(),
                    payee_bank_name: String::new(),
                    payee_account: String::new(),
                    idempotency_key: key.to_owned(),
                },
            ))
            .await
            .map(|r| r.into_inner().refund.unwrap())
    }

    async fn get_refund(&self, t: &Tenant, id: &str) -> pb::Refund {
        self.client
            .clone()
            .get_refund(self.req(
                t,
                pb::GetRefundRequest {
                    refund_id: id.to_owned(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .refund
            .unwrap()
    }

    /// A bill of `fen` paid in full from the balance.
    async fn paid_bill(&self, t: &Tenant, source: &str, fen: i64) -> pb::Bill {
        self.top_up(t, fen).await;
        let bill = self.unpaid_bill(t, source, fen).await;
        self.pay(
            t,
            self.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, source),
        )
        .await
        .unwrap();
        self.bill(t, &bill.id).await
    }
}

#[tokio::test]
async fn a_refund_to_the_balance_is_applied_once_and_never_exceeds_what_was_paid() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let bill = s.paid_bill(a, "r-1", 100_000).await;
    let req = apply(
        &bill,
        30_000,
        pb::RefundMethod::PrepaidBalance,
        "refund-once",
    );
    let answers: Vec<pb::CreateRefundResponse> = a_hundred_at_once(|| {
        let client = s.client.clone();
        let call = s.req(a, req.clone());
        async move {
            client
                .clone()
                .create_refund(call)
                .await
                .unwrap()
                .into_inner()
        }
    })
    .await;
    assert!(answers.iter().all(|x| *x == answers[0]));
    assert_eq!(s.count(a, "refund").await, 1);
    let refund = answers[0].refund.clone().unwrap();
    assert_eq!(refund.status, pb::RefundStatus::PendingReview as i32);

    // In flight counts: 70,001 more is too much, 70,000 is not.
    let e = err(&s
        .refund(
            a,
            apply(&bill, 70_001, pb::RefundMethod::PrepaidBalance, "too-much"),
        )
        .await
        .unwrap_err());
    assert_eq!(e.fields[0].field, "amountFen");
    // The same key with another amount: 4009.
    let e = err(&s
        .refund(
            a,
            apply(&bill, 10, pb::RefundMethod::PrepaidBalance, "refund-once"),
        )
        .await
        .unwrap_err());
    assert_eq!(e.code.edge_code(), 4009);

    let done = s.confirm(a, &refund, "confirm-once").await.unwrap();
    assert_eq!(done.status, pb::RefundStatus::Completed as i32);
    assert_eq!(done.refunded_fen, 30_000);
    // Confirming again under the same key answers the same; under another, 4009.
    assert_eq!(s.confirm(a, &refund, "confirm-once").await.unwrap(), done);
    let e = err(&s.confirm(a, &refund, "confirm-again").await.unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(s.transfers(a, BALANCE_REFUND).await, 1);
    assert_eq!(s.balance(a).await, 30_000);
    assert_eq!(s.bill(a, &bill.id).await.refunded_fen, 30_000);
    s.books_hold().await;
}

#[tokio::test]
async fn a_bank_refund_pays_out_once_or_is_voided_never_both() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let (bill, pending) = w
        .settled_bank_payment(a, "rb-1", 80_000, Outcome::Success, None)
        .await;
    // A refund the bank refuses: the hold goes back, nothing refunded.
    let first = s
        .refund(
            a,
            apply(&bill, 20_000, pb::RefundMethod::OriginalRoute, "rb-r1"),
        )
        .await
        .unwrap();
    let processing = s.confirm(a, &first, "rb-c1").await.unwrap();
    assert_eq!(processing.status, pb::RefundStatus::Processing as i32);
    assert_eq!(processing.payment_id, pending.id);
    w.bank
        .settle_refund(
            &processing.transaction_no,
            Outcome::Failed,
            Some("账户已销户"),
        )
        .unwrap();
    let failed = wait_refund(s, a, &first.id).await;
    assert_eq!(failed.status, pb::RefundStatus::Failed as i32);
    assert_eq!(failed.failure_reason, "账户已销户");
    assert_eq!(s.transfers(a, REFUND_VOID).await, 1);
    assert_eq!(s.bill(a, &bill.id).await.refunded_fen, 0);

    // Another the bank pays, its callback repeated ten times: paid once.
    let second = s
        .refund(
            a,
            apply(&bill, 80_000, pb::RefundMethod::OriginalRoute, "rb-r2"),
        )
        .await
        .unwrap();
    let processing = s.confirm(a, &second, "rb-c2").await.unwrap();
    w.bank
        .settle_refund(&processing.transaction_no, Outcome::Success, None)
        .unwrap();
    let done = wait_refund(s, a, &second.id).await;
    assert_eq!(done.status, pb::RefundStatus::Completed as i32);
    let replayed = w.bank.replay(&processing.transaction_no, 10).await.unwrap();
    assert!(
        replayed.statuses.iter().all(|c| *c == Some(200)),
        "{replayed:?}"
    );
    assert_eq!(s.transfers(a, REFUND_PAYOUT).await, 1);
    assert_eq!(s.transfers(a, REFUND_VOID).await, 1);
    assert_eq!(s.bill(a, &bill.id).await.refunded_fen, 80_000);
    // Nothing is left to refund.
    let e = err(&s
        .refund(
            a,
            apply(&bill, 1, pb::RefundMethod::PrepaidBalance, "rb-r3"),
        )
        .await
        .unwrap_err());
    assert_eq!(e.fields[0].field, "amountFen");
    s.books_hold().await;
}

async fn wait_refund(s: &Stack, t: &Tenant, id: &str) -> pb::Refund {
    for _ in 0..100 {
        let r = s.get_refund(t, id).await;
        if r.status != pb::RefundStatus::Processing as i32 {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("refund {id} still processing");
}

#[tokio::test]
async fn a_cancelled_refund_frees_its_amount_and_tenant_b_sees_nothing_of_a() {
    let w = banked().await;
    let s = &w.s;
    let (a, b) = (&s.a, &s.b);
    let bill = s.paid_bill(a, "rc-1", 50_000).await;
    let refund = s
        .refund(
            a,
            apply(&bill, 50_000, pb::RefundMethod::PrepaidBalance, "rc-r"),
        )
        .await
        .unwrap();
    // B can neither see nor cancel it, nor refund A's bill.
    let e = s
        .client
        .clone()
        .cancel_refund(s.req(
            b,
            pb::CancelRefundRequest {
                refund_id: refund.id.clone(),
                reason: String::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);
    let listed = s
        .client
        .clone()
        .list_refunds(s.req(b, pb::ListRefundsRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.refunds.is_empty());
    let e = s
        .refund(b, apply(&bill, 1, pb::RefundMethod::PrepaidBalance, "b-r"))
        .await
        .unwrap_err();
    assert_eq!(err(&e).code, ErrorCode::NotFound);

    let cancelled = s
        .client
        .clone()
        .cancel_refund(s.req(
            a,
            pb::CancelRefundRequest {
                refund_id: refund.id.clone(),
                reason: "填错金额".to_owned(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .refund
        .unwrap();
    assert_eq!(cancelled.status, pb::RefundStatus::Cancelled as i32);
    let e = err(&s.confirm(a, &refund, "rc-c").await.unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    // Its amount is free again.
    s.refund(
        a,
        apply(&bill, 50_000, pb::RefundMethod::PrepaidBalance, "rc-r2"),
    )
    .await
    .unwrap();
    let mine = s
        .client
        .clone()
        .list_refunds(s.req(
            a,
            pb::ListRefundsRequest {
                bill_id: bill.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(mine.refunds.len(), 2);
}

#[tokio::test]
async fn random_payments_and_refunds_keep_every_invariant() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    s.top_up(a, 2_000_000).await;
    let mut bills = Vec::new();
    for i in 0..4 {
        bills.push(
            s.unpaid_bill(a, &format!("prop-{i}"), 50_000 + 10_000 * i)
                .await,
        );
    }
    let mut refunds: Vec<pb::Refund> = Vec::new();
    let mut rng = Seeded(0x5eed_f1ee_7de5);
    for step in 0..60 {
        let bill = s
            .bill(a, &bills[rng.below(bills.len() as u64) as usize].id)
            .await;
        let key = format!("step-{step}");
        let outcome = match rng.below(4) {
            0 | 1 if bill.outstanding_fen > 0 => {
                let mut req = s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, &key);
                let part = 1 + rng.below(bill.outstanding_fen as u64) as i64;
                req.amount_fen = part;
                req.expected_total_fen = part;
                s.pay(a, req).await.map(drop)
            }
            2 => {
                // Sometimes more than may be refunded: refused, nothing moves.
                let fen = 1 + rng.below(bill.paid_fen as u64 + 5_000) as i64;
                s.refund(a, apply(&bill, fen, pb::RefundMethod::PrepaidBalance, &key))
                    .await
                    .map(|r| refunds.push(r))
            }
            _ => match refunds.pop() {
                Some(r) if rng.below(3) == 0 => s
                    .client
                    .clone()
                    .cancel_refund(s.req(
                        a,
                        pb::CancelRefundRequest {
                            refund_id: r.id.clone(),
                            reason: String::new(),
                        },
                    ))
                    .await
                    .map(drop),
                Some(r) => s.confirm(a, &r, &key).await.map(drop),
                None => Ok(()),
            },
        };
        if let Err(status) = outcome {
            let e = err(&status);
            assert!(
                matches!(e.code, ErrorCode::BadRequest | ErrorCode::Conflict),
                "step {step}: {e:?}"
            );
        }
        s.books_hold().await;
    }
    // The run did move money both ways, not only refusals.
    assert!(s.count(a, "bill_payment").await >= 5);
    assert!(s.transfers(a, BALANCE_REFUND).await >= 1);
}
