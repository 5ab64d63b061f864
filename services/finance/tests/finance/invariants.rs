//! A property test of the whole money model over the real gRPC server, the
//! bank stand-in and the invoicing stand-in: seeded random runs of a B2B
//! enterprise mixing bills raised, top-ups, payments from the balance (some
//! with a coupon, some at a stale total) and through the bank (its callback
//! succeeding or failing, repeated, or forged), partial and full refunds to
//! the balance and back through the bank (some refused by it and voided),
//! coupon grants, invoice applications issued by the worker and reversed
//! with red-letter invoices, cancellations of refunds, orders and
//! applications, and calls the enterprise may not make. After every step,
//! straight from the tables:
//!
//! - every transfer has two or more entries summing to zero, every account's
//!   balance is the sum of its entries, none is below its floor;
//! - a bill's paid amount is what its succeeded payments allocated to it,
//!   its refunded amount what its completed refunds paid back, and what was
//!   refunded plus what is in flight never exceeds what was paid;
//! - a bill's invoiced amount is what its live applications took, never
//!   more than was paid;
//! - a coupon is used by at most one payment, and the coupon budget paid
//!   exactly the discounts of the used ones;
//! - revenue plus the refunds on their way is what bills were paid less
//!   what was refunded, and the holds are the refunds the bank is paying.
//!
//! At the end the ledger's daily check finds no difference.

use crate::support;

use std::collections::BTreeMap;
use std::time::Duration;

use fleetdesk_bank_standin::Outcome;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::internal_token::enterprise_flag::{B2B, ORDER_CENTER};
use fleetdesk_kit::{ErrorCode, db};
use fleetdesk_proto::finance::v1 as pb;
use support::bank::{Banked, banked_with};
use support::{PERMISSIONS, Seeded, Tenant, err, line, month, new_bill};
use uuid::Uuid;

/// The console's finance permissions and the invoice screens'.
const PERMS: [&str; 8] = [
    PERMISSIONS[0],
    PERMISSIONS[1],
    PERMISSIONS[2],
    PERMISSIONS[3],
    PERMISSIONS[4],
    PERMISSIONS[5],
    "as:invoice",
    "as:invoice:company",
];
/// A published code passing GB 32100.
const TAX_ID: &str = "9144030071526726XG";
/// Stored codes read below.
const PAYMENT_PENDING: i16 = 1;
const REFUND_PROCESSING: i16 = 3;
const APPLICATION_ISSUING: i16 = 2;

#[tokio::test]
async fn random_money_moves_of_three_seeds_keep_every_invariant() {
    let mut done = BTreeMap::new();
    for seed in [
        0x5eed_0001_f1ee_7de5,
        0x0dd_ba11_cafe_2026,
        0x7e57_ab1e_0b5e_55ed,
    ] {
        for (kind, n) in run(seed, 200).await {
            *done.entry(kind).or_default() += n;
        }
    }
    println!("{done:?}");
    // The runs moved money every way, not only refusals.
    for kind in [
        "pay_from_balance",
        "pay_with_coupon",
        "bank_success",
        "bank_failure",
        "refund_to_balance",
        "refund_through_bank",
        "bank_refund_paid",
        "bank_refund_voided",
        "invoice",
        "red_letter",
        "refused_by_rule",
    ] {
        assert!(
            done.get(kind).copied().unwrap_or(0) >= 2,
            "no {kind} in {done:?}"
        );
    }
}

/// `steps` random steps of one enterprise on a fresh stack, checking after
/// each; what happened how often.
async fn run(seed: u64, steps: usize) -> BTreeMap<&'static str, usize> {
    let (standin, invoicing) = support::invoicing::standin().await;
    let w = banked_with(|finance| finance.issue_invoices_through(invoicing).unwrap()).await;
    let _invoicing = standin;
    let mut r = Run {
        t: w.s.a.clone(),
        w: &w,
        rng: Seeded(seed),
        title_id: String::new(),
        step: 0,
        done: BTreeMap::new(),
    };
    r.title_id = r.title().await;
    for step in 0..steps {
        r.step = step;
        let (name, outcome) = r.one_step().await;
        match outcome {
            Ok(true) => *r.done.entry(name).or_default() += 1,
            Ok(false) => {}
            Err(status) => {
                let e = err(&status);
                assert!(
                    matches!(e.code, ErrorCode::BadRequest | ErrorCode::Conflict),
                    "seed {seed:x} step {step} {name}: {e:?}"
                );
            }
        }
        let wrong = broken(&w, &r.t).await;
        assert!(
            wrong.is_empty(),
            "seed {seed:x} step {step} {name}: {wrong:#?}"
        );
    }
    // The worker ends what it is issuing; then the books still hold, and
    // the daily job finds nothing.
    for _ in 0..100 {
        if count(&w, &r.t, "invoice_application", APPLICATION_ISSUING).await == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let wrong = broken(&w, &r.t).await;
    assert!(wrong.is_empty(), "seed {seed:x} at the end: {wrong:#?}");
    let found = fleetdesk_ledger::run_once(&w.s.owner, fleetdesk_finance::SCHEMA.name)
        .await
        .unwrap();
    assert!(found.is_empty(), "{found:?}");
    // The checks are not vacuous: a bill's invoiced amount nudged by hand is seen.
    let mut tx = db::begin_service(&w.s.owner).await.unwrap();
    sqlx::query(
        "update bill set invoiced_fen = invoiced_fen + 1 where id = \
         (select id from bill where enterprise_id = $1 and paid_fen > invoiced_fen limit 1)",
    )
    .bind(r.t.enterprise)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let planted = broken(&w, &r.t).await;
    assert_eq!(planted.len(), 1, "{planted:?}");
    assert!(
        planted[0].starts_with("a bill's invoiced amount"),
        "{planted:?}"
    );
    r.done
}

struct Run<'a> {
    w: &'a Banked,
    t: Tenant,
    rng: Seeded,
    title_id: String,
    step: usize,
    /// What happened how often (the run's coverage).
    done: BTreeMap<&'static str, usize>,
}

/// A bill as the steps choose among them.
#[derive(Debug, sqlx::FromRow)]
struct BillNow {
    id: Uuid,
    outstanding_fen: i64,
    paid_fen: i64,
    refunded_fen: i64,
    invoiced_fen: i64,
}

type Step = Result<bool, tonic::Status>;

impl Run<'_> {
    fn user<T>(&self, message: T) -> tonic::Request<T> {
        self.w
            .s
            .req_as(&self.t, &PERMS, &[B2B, ORDER_CENTER], message)
    }

    fn client(
        &self,
    ) -> pb::finance_service_client::FinanceServiceClient<tonic::transport::Channel> {
        self.w.s.client.clone()
    }

    fn pick<T>(&mut self, from: Vec<T>) -> Option<T> {
        if from.is_empty() {
            return None;
        }
        let at = self.rng.below(from.len() as u64) as usize;
        from.into_iter().nth(at)
    }

    fn key(&self, what: &str) -> String {
        format!("{what}-{}", self.step)
    }

    async fn title(&self) -> String {
        self.client()
            .create_invoice_title(self.user(pb::CreateInvoiceTitleRequest {
                title: Some(pb::InvoiceTitleInput {
                    title_type: pb::InvoiceTitleType::Company as i32,
                    name: "深圳市腾讯计算机系统有限公司".to_owned(),
                    tax_number: TAX_ID.to_owned(),
                    is_default: true,
                    ..Default::default()
                }),
                tax_number_confirmed: false,
            }))
            .await
            .unwrap()
            .into_inner()
            .title
            .unwrap()
            .id
    }

    async fn bills(&self, condition: &str) -> Vec<BillNow> {
        let mut tx = db::begin_service(&self.w.s.owner).await.unwrap();
        sqlx::query_as(&format!(
            "select id, outstanding_fen, paid_fen, refunded_fen, invoiced_fen \
             from bill where enterprise_id = $1 and ({condition}) order by created_at, id"
        ))
        .bind(self.t.enterprise)
        .fetch_all(&mut *tx)
        .await
        .unwrap()
    }

    /// Rows of `sql` (its first parameter the enterprise), in a stable order.
    async fn rows<T>(&self, sql: &str) -> Vec<T>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx_postgres::PgRow> + Send + Unpin,
    {
        let mut tx = db::begin_service(&self.w.s.owner).await.unwrap();
        sqlx::query_as(sql)
            .bind(self.t.enterprise)
            .fetch_all(&mut *tx)
            .await
            .unwrap()
    }

    async fn one_step(&mut self) -> (&'static str, Step) {
        match self.rng.below(100) {
            0..=7 => ("raise", self.raise().await),
            8..=12 => ("top_up", self.top_up().await),
            13..=26 => ("pay_from_balance", self.pay_from_balance().await),
            27..=34 => ("pay_by_bank", self.pay_by_bank().await),
            35..=43 => ("settle_payment", self.settle_payment().await),
            44..=53 => ("apply_refund", self.apply_refund().await),
            54..=62 => ("confirm_refund", self.confirm_refund().await),
            63..=65 => ("cancel_refund", self.cancel_refund().await),
            66..=72 => ("settle_refund", self.settle_refund().await),
            73..=76 => ("grant", self.grant().await),
            77..=84 => ("apply_invoice", self.apply_invoice().await),
            85..=90 => ("cancel_invoice", self.cancel_invoice().await),
            91..=95 => ("order", self.order().await),
            _ => ("not_allowed", self.not_allowed().await),
        }
    }

    async fn raise(&mut self) -> Step {
        let fen = 1_000 + self.rng.below(150_000) as i64;
        let mut req = new_bill(
            &self.t,
            self.t.shanghai,
            pb::BillKind::Rent,
            month(2026, 1 + self.rng.below(12) as i32),
            &self.key("bill"),
            vec![line("租金", "粤B10001", fen)],
        );
        // Mostly B2B bills (the enterprise invoices those), some standard.
        if self.rng.below(10) < 7 {
            req.channel = pb::Channel::B2b as i32;
        }
        self.w.s.create_bill(req).await.map(|_| true)
    }

    async fn top_up(&mut self) -> Step {
        let fen = 10_000 + self.rng.below(200_000) as i64;
        self.w.s.top_up(&self.t, fen).await;
        Ok(true)
    }

    /// A bill still owed, and how much of it to pay (all of it, or part).
    async fn owed(&mut self) -> Option<(BillNow, i64)> {
        let owed = self.bills("status in (2, 3) and outstanding_fen > 0").await;
        let bill = self.pick(owed)?;
        let part = match self.rng.below(2) {
            0 => 0,
            _ => 1 + self.rng.below(bill.outstanding_fen as u64) as i64,
        };
        Some((bill, part))
    }

    fn pay_request(
        &self,
        bill: &BillNow,
        part: i64,
        method: pb::PaymentMethod,
    ) -> pb::PayBillRequest {
        pb::PayBillRequest {
            bill_ids: vec![bill.id.to_string()],
            amount_fen: part,
            expected_total_fen: if part > 0 { part } else { bill.outstanding_fen },
            method: method as i32,
            payer_name: "测试企业".to_owned(),
            payer_bank_name: "招商银行".to_owned(),
            payer_account: "6222021234567890".to_owned(),
            idempotency_key: self.key("pay"),
            ..Default::default()
        }
    }

    async fn pay_from_balance(&mut self) -> Step {
        let Some((bill, part)) = self.owed().await else {
            return Ok(false);
        };
        let mut req = self.pay_request(&bill, part, pb::PaymentMethod::PrepaidBalance);
        let mut with_coupon = false;
        if self.rng.below(5) < 2 {
            let coupons: Vec<(Uuid, i16, i64, i32, i64, i64)> = self
                .rows(
                    "select id, kind, face_value_fen, percent_off_bp, max_discount_fen, \
                     min_spend_fen from coupon where enterprise_id = $1 and status = 1 \
                     and valid_until > now() order by coupon_no",
                )
                .await;
            if let Some((id, kind, face, bp, cap, min_spend)) = self.pick(coupons) {
                let total = req.expected_total_fen;
                let off = match kind {
                    1 => face,
                    _ => {
                        let share = total * i64::from(bp) / 10_000;
                        if cap > 0 { share.min(cap) } else { share }
                    }
                }
                .clamp(0, total);
                // Below the minimum spend it is refused at the full total.
                if total >= min_spend {
                    req.expected_total_fen = total - off;
                }
                req.coupon_id = id.to_string();
                with_coupon = true;
            }
        }
        let stale = self.rng.below(20) == 0;
        if stale {
            req.expected_total_fen += 1;
        }
        let answer = self.client().pay_bill(self.user(req)).await;
        if stale {
            let e = err(answer.as_ref().unwrap_err());
            assert_eq!(e.code, ErrorCode::Conflict, "a stale total: {e:?}");
            return Ok(false);
        }
        let payment = answer?.into_inner().payment.unwrap();
        assert_eq!(payment.status, pb::PaymentStatus::Succeeded as i32);
        if with_coupon {
            *self.done.entry("pay_with_coupon").or_default() += 1;
        }
        Ok(true)
    }

    async fn pay_by_bank(&mut self) -> Step {
        let Some((bill, part)) = self.owed().await else {
            return Ok(false);
        };
        let req = self.pay_request(&bill, part, pb::PaymentMethod::OnlineBanking);
        let payment = self
            .client()
            .pay_bill(self.user(req))
            .await?
            .into_inner()
            .payment
            .unwrap();
        assert_eq!(payment.status, pb::PaymentStatus::Pending as i32);
        Ok(true)
    }

    async fn settle_payment(&mut self) -> Step {
        let pending: Vec<(Uuid, String)> = self
            .rows(
                "select id, bank_order_id from bill_payment \
                 where enterprise_id = $1 and status = 1 order by created_at, id",
            )
            .await;
        let Some((id, order)) = self.pick(pending) else {
            return Ok(false);
        };
        let bank = &self.w.bank;
        // A forger's word first: nothing changes.
        if self.rng.below(4) == 0 {
            bank.forge(&order).await.unwrap();
            assert_eq!(self.status_of("bill_payment", id).await, PAYMENT_PENDING);
        }
        let outcome = if self.rng.below(5) < 3 {
            Outcome::Success
        } else {
            Outcome::Failed
        };
        bank.settle_order(&order, outcome, Some("余额不足"))
            .unwrap();
        for _ in 0..100 {
            if self.status_of("bill_payment", id).await != PAYMENT_PENDING {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_ne!(self.status_of("bill_payment", id).await, PAYMENT_PENDING);
        if self.rng.below(3) == 0 {
            let times = 1 + self.rng.below(3) as u32;
            bank.replay(&order, times).await.unwrap();
        }
        let name = match outcome {
            Outcome::Success => "bank_success",
            Outcome::Failed => "bank_failure",
        };
        *self.done.entry(name).or_default() += 1;
        Ok(true)
    }

    async fn status_of(&self, table: &str, id: Uuid) -> i16 {
        let mut tx = db::begin_service(&self.w.s.owner).await.unwrap();
        sqlx::query_scalar(&format!("select status from {table} where id = $1"))
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .unwrap()
    }

    async fn apply_refund(&mut self) -> Step {
        // Half the time a bill the bank paid, so refunds go back through it.
        let through_bank = self.rng.below(2) == 0;
        let paid = match through_bank {
            true => {
                self.bills(
                    "paid_fen > 0 and exists (select 1 from bill_payment_allocation a \
                     join bill_payment p on p.id = a.payment_id \
                     where a.bill_id = bill.id and p.status = 2 and p.method = 2)",
                )
                .await
            }
            false => self.bills("paid_fen > 0").await,
        };
        let Some(bill) = self.pick(paid) else {
            return Ok(false);
        };
        // Sometimes more than may be refunded: refused, nothing moves.
        let left = (bill.paid_fen - bill.refunded_fen).max(1);
        let fen = match self.rng.below(5) {
            0 => left + 1 + self.rng.below(3_000) as i64,
            _ => 1 + self.rng.below(left as u64) as i64,
        };
        let method = if !through_bank && self.rng.below(2) == 0 {
            pb::RefundMethod::PrepaidBalance
        } else {
            pb::RefundMethod::OriginalRoute
        };
        let req = pb::CreateRefundRequest {
            channel: pb::Channel::Unspecified as i32,
            bill_id: bill.id.to_string(),
            reason: pb::RefundReason::Overpayment as i32,
            reason_detail: "多付".to_owned(),
            amount_fen: fen,
            method: method as i32,
            idempotency_key: self.key("refund"),
            ..Default::default()
        };
        self.client().create_refund(self.user(req)).await?;
        Ok(true)
    }

    async fn confirm_refund(&mut self) -> Step {
        let open: Vec<(Uuid, i64)> = self
            .rows(
                "select id, requested_fen from refund \
                 where enterprise_id = $1 and status in (1, 2) order by created_at, id",
            )
            .await;
        let Some((id, requested)) = self.pick(open) else {
            return Ok(false);
        };
        let req = pb::ConfirmRefundRequest {
            refund_id: id.to_string(),
            expected_amount_fen: requested,
            idempotency_key: self.key("confirm"),
            ..Default::default()
        };
        let refund = self
            .client()
            .confirm_refund(self.user(req))
            .await?
            .into_inner()
            .refund
            .unwrap();
        let name = if refund.status == pb::RefundStatus::Processing as i32 {
            "refund_through_bank"
        } else {
            assert_eq!(refund.status, pb::RefundStatus::Completed as i32);
            "refund_to_balance"
        };
        *self.done.entry(name).or_default() += 1;
        Ok(true)
    }

    async fn cancel_refund(&mut self) -> Step {
        let open: Vec<(Uuid,)> = self
            .rows(
                "select id from refund where enterprise_id = $1 and status in (1, 2) \
                 order by created_at, id",
            )
            .await;
        let Some((id,)) = self.pick(open) else {
            return Ok(false);
        };
        let req = pb::CancelRefundRequest {
            refund_id: id.to_string(),
            reason: "填错金额".to_owned(),
        };
        self.client().cancel_refund(self.user(req)).await?;
        Ok(true)
    }

    async fn settle_refund(&mut self) -> Step {
        let processing: Vec<(Uuid, String)> = self
            .rows(
                "select id, transaction_no from refund where enterprise_id = $1 and status = 3 \
                 order by created_at, id",
            )
            .await;
        let Some((id, transaction_no)) = self.pick(processing) else {
            return Ok(false);
        };
        let outcome = if self.rng.below(2) == 0 {
            Outcome::Success
        } else {
            Outcome::Failed
        };
        let bank = &self.w.bank;
        bank.settle_refund(&transaction_no, outcome, Some("账户已销户"))
            .unwrap();
        for _ in 0..100 {
            if self.status_of("refund", id).await != REFUND_PROCESSING {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_ne!(self.status_of("refund", id).await, REFUND_PROCESSING);
        if self.rng.below(3) == 0 {
            bank.replay(&transaction_no, 1 + self.rng.below(3) as u32)
                .await
                .unwrap();
        }
        let name = match outcome {
            Outcome::Success => "bank_refund_paid",
            Outcome::Failed => "bank_refund_voided",
        };
        *self.done.entry(name).or_default() += 1;
        Ok(true)
    }

    async fn grant(&mut self) -> Step {
        let until = chrono::Utc::now() + chrono::Duration::days(30);
        let mut coupons = Vec::new();
        for i in 0..1 + self.rng.below(2) {
            let min_spend_fen = match self.rng.below(3) {
                0 => 10_000 + self.rng.below(40_000) as i64,
                _ => 0,
            };
            let mut coupon = pb::CouponGrant {
                coupon_no: format!("c-{}-{i}", self.step),
                name: format!("满减券 {}-{i}", self.step),
                kind: pb::CouponKind::AmountOff as i32,
                face_value_fen: 100 + self.rng.below(30_000) as i64,
                min_spend_fen,
                valid_until: Some(timestamp(until)),
                ..Default::default()
            };
            if self.rng.below(3) == 0 {
                coupon.kind = pb::CouponKind::PercentOff as i32;
                coupon.face_value_fen = 0;
                coupon.percent_off_bp = 500 + self.rng.below(4_500) as i32;
                coupon.max_discount_fen = match self.rng.below(2) {
                    0 => 0,
                    _ => 2_000 + self.rng.below(8_000) as i64,
                };
            }
            coupons.push(coupon);
        }
        let req = pb::GrantCouponsRequest {
            enterprise_id: self.t.enterprise.to_string(),
            campaign: "property".to_owned(),
            coupons,
        };
        self.client().grant_coupons(self.w.s.service(req)).await?;
        Ok(true)
    }

    async fn apply_invoice(&mut self) -> Step {
        let invoiceable = self
            .bills(
                "channel = 2 and status in (3, 4) and paid_fen - refunded_fen - invoiced_fen > 0",
            )
            .await;
        let Some(bill) = self.pick(invoiceable) else {
            return Ok(false);
        };
        let left = bill.paid_fen - bill.refunded_fen - bill.invoiced_fen;
        // All that is left, or a part, or sometimes more: refused.
        let amount_fen = match self.rng.below(3) {
            0 => 0,
            _ => 1 + self.rng.below(left as u64 + 2_000) as i64,
        };
        let req = pb::ApplyInvoiceRequest {
            channel: pb::Channel::B2b as i32,
            invoice_type: pb::InvoiceType::DigitalGeneral as i32,
            title_id: self.title_id.clone(),
            bills: vec![pb::InvoiceBillAmount {
                bill_id: bill.id.to_string(),
                amount_fen,
            }],
            idempotency_key: self.key("invoice"),
            ..Default::default()
        };
        let applied = self
            .client()
            .apply_invoice(self.user(req))
            .await?
            .into_inner()
            .application
            .unwrap();
        assert!(applied.amount_fen <= left, "{applied:?} of {bill:?}");
        *self.done.entry("invoice").or_default() += 1;
        Ok(true)
    }

    async fn cancel_invoice(&mut self) -> Step {
        let live: Vec<(Uuid, i16)> = self
            .rows(
                "select id, status from invoice_application \
                 where enterprise_id = $1 and status in (1, 2, 3) order by created_at, id",
            )
            .await;
        let Some((id, status)) = self.pick(live) else {
            return Ok(false);
        };
        let req = pb::CancelInvoiceApplicationRequest {
            application_id: id.to_string(),
            reason: "开票有误".to_owned(),
        };
        let cancelled = self
            .client()
            .cancel_invoice_application(self.user(req))
            .await?
            .into_inner()
            .application
            .unwrap();
        assert_eq!(
            cancelled.status,
            pb::InvoiceApplicationStatus::Cancelled as i32
        );
        if status == 3 {
            assert!(cancelled.invoices.iter().all(|i| i.reversed));
            *self.done.entry("red_letter").or_default() += 1;
        }
        Ok(true)
    }

    async fn order(&mut self) -> Step {
        let pending: Vec<(Uuid,)> = self
            .rows(
                "select id from enterprise_order where enterprise_id = $1 and status = 1 \
                 order by created_at, id",
            )
            .await;
        if self.rng.below(2) == 0
            && let Some((id,)) = self.pick(pending)
        {
            let req = pb::CancelOrderRequest {
                order_id: id.to_string(),
                reason: "不要了".to_owned(),
            };
            self.client().cancel_order(self.user(req)).await?;
            return Ok(true);
        }
        let quantity = 1 + self.rng.below(4) as i32;
        let req = pb::CreateOrderRequest {
            enterprise_id: self.t.enterprise.to_string(),
            org_id: self.t.shanghai.to_string(),
            kind: pb::OrderKind::ValueAddedService as i32,
            title: "视频服务".to_owned(),
            items: vec![pb::OrderItem {
                name: "视频流量包".to_owned(),
                sku: "VID-10G".to_owned(),
                quantity,
                unit_price_fen: 5_000,
                amount_fen: 5_000 * i64::from(quantity),
                vehicle_id: String::new(),
                plate_number: "粤B10001".to_owned(),
            }],
            source_service: "vehicle".to_owned(),
            source_id: self.key("order"),
            ..Default::default()
        };
        self.client().create_order(self.w.s.service(req)).await?;
        Ok(true)
    }

    /// What the B2B enterprise may not do, or what a non-B2B token may not:
    /// 9999, and nothing is written.
    async fn not_allowed(&mut self) -> Step {
        let before = footprint(self.w, &self.t).await;
        let answer = match self.rng.below(2) {
            0 => {
                let standard = self.bills("channel = 1 and paid_fen > 0").await;
                let Some(bill) = self.pick(standard) else {
                    return Ok(false);
                };
                let req = pb::ApplyInvoiceRequest {
                    channel: pb::Channel::Standard as i32,
                    invoice_type: pb::InvoiceType::DigitalGeneral as i32,
                    title_id: self.title_id.clone(),
                    bills: vec![pb::InvoiceBillAmount {
                        bill_id: bill.id.to_string(),
                        amount_fen: 0,
                    }],
                    idempotency_key: self.key("standard-invoice"),
                    ..Default::default()
                };
                self.client().apply_invoice(self.user(req)).await.map(drop)
            }
            _ => {
                let Some((bill, part)) = self.owed().await else {
                    return Ok(false);
                };
                let req = self.pay_request(&bill, part, pb::PaymentMethod::PrepaidBalance);
                let plain = self.w.s.req_as(&self.t, &PERMS, &[], req);
                self.client().pay_bill(plain).await.map(drop)
            }
        };
        let e = err(&answer.unwrap_err());
        assert_eq!(e.code.edge_code(), 9999, "{e:?}");
        assert_eq!(footprint(self.w, &self.t).await, before);
        *self.done.entry("refused_by_rule").or_default() += 1;
        Ok(false)
    }
}

/// Counts and sums that any write by a refused call would change:
/// payments, the main balance, applications, refunds, bills' amounts.
async fn footprint(w: &Banked, t: &Tenant) -> Vec<i64> {
    let mut tx = db::begin_service(&w.s.owner).await.unwrap();
    let mut all = Vec::new();
    for query in [
        "select count(*) from bill_payment where enterprise_id = $1",
        "select coalesce(sum(balance_fen), 0)::bigint from ledger_account \
         where enterprise_id = $1 and kind = 1",
        "select count(*) from invoice_application where enterprise_id = $1",
        "select count(*) from refund where enterprise_id = $1",
        "select coalesce(sum(paid_fen + 7 * refunded_fen + 31 * invoiced_fen), 0)::bigint \
         from bill where enterprise_id = $1",
    ] {
        all.push(
            sqlx::query_scalar(query)
                .bind(t.enterprise)
                .fetch_one(&mut *tx)
                .await
                .unwrap(),
        );
    }
    all
}

async fn count(w: &Banked, t: &Tenant, table: &str, status: i16) -> i64 {
    let mut tx = db::begin_service(&w.s.owner).await.unwrap();
    sqlx::query_scalar(&format!(
        "select count(*) from {table} where enterprise_id = $1 and status = $2"
    ))
    .bind(t.enterprise)
    .bind(status)
    .fetch_one(&mut *tx)
    .await
    .unwrap()
}

/// Every invariant of the money model that does not hold for `t`, each
/// query naming the rows that break it.
async fn broken(w: &Banked, t: &Tenant) -> Vec<String> {
    const CHECKS: [(&str, &str); 12] = [
        (
            "a transfer's entries do not sum to zero, or it has fewer than two",
            "select t.id::text from ledger_transfer t left join ledger_entry e on e.transfer_id = t.id \
             where t.enterprise_id = $1 group by t.id \
             having coalesce(sum(e.amount_fen), 0) <> 0 or count(e.id) < 2",
        ),
        (
            "an account's balance is not the sum of its entries",
            "select a.id::text from ledger_account a \
             where a.enterprise_id = $1 and a.balance_fen <> \
             (select coalesce(sum(amount_fen), 0) from ledger_entry where account_id = a.id)",
        ),
        (
            "an account is below its floor",
            "select id::text from ledger_account where enterprise_id = $1 \
             and not may_go_negative and balance_fen < -overdraft_fen",
        ),
        (
            "a bill's paid amount is not what its succeeded payments allocated",
            "select b.id::text from bill b where b.enterprise_id = $1 and b.paid_fen <> \
             (select coalesce(sum(a.amount_fen), 0) from bill_payment_allocation a \
              join bill_payment p on p.id = a.payment_id \
              where a.bill_id = b.id and p.status = 2)",
        ),
        (
            "a succeeded balance payment's allocations are not its amount plus its coupon",
            "select p.id::text from bill_payment p where p.enterprise_id = $1 and p.status = 2 \
             and p.method = 5 and p.amount_fen + p.coupon_deduction_fen <> \
             (select coalesce(sum(amount_fen), 0) from bill_payment_allocation where payment_id = p.id)",
        ),
        (
            "a bill's refunded amount is not what its completed refunds paid back",
            "select b.id::text from bill b where b.enterprise_id = $1 and b.refunded_fen <> \
             (select coalesce(sum(r.refunded_fen), 0) from refund r \
              where r.bill_id = b.id and r.status = 4)",
        ),
        (
            "a bill has more refunded and in flight than was paid",
            "select b.id::text from bill b where b.enterprise_id = $1 and b.refunded_fen + \
             (select coalesce(sum(greatest(r.requested_fen, r.approved_fen) - r.refunded_fen), 0) \
              from refund r where r.bill_id = b.id and r.status in (1, 2, 3)) > b.paid_fen",
        ),
        (
            "a bill's invoiced amount is not what its live applications took, or more than paid",
            "select b.id::text from bill b where b.enterprise_id = $1 and (b.invoiced_fen > b.paid_fen \
             or b.invoiced_fen <> (select coalesce(sum(ab.amount_fen), 0) \
              from invoice_application_bill ab join invoice_application a on a.id = ab.application_id \
              where ab.bill_id = b.id and a.status not in (5, 6)))",
        ),
        (
            "a coupon is used by more than one payment, or used without its payment",
            "select c.id::text from coupon c where c.enterprise_id = $1 and \
             ((select count(*) from bill_payment p where p.coupon_id = c.id and p.status in (1, 2)) > 1 \
              or (c.status = 3) <> exists (select 1 from bill_payment p \
                 where p.coupon_id = c.id and p.status = 2 and p.id = c.used_payment_id))",
        ),
        (
            "the coupon budget did not pay exactly the used coupons' discounts",
            "select a.id::text from ledger_account a where a.enterprise_id = $1 and a.kind = 4 \
             and -a.balance_fen <> (select coalesce(sum(used_discount_fen), 0) from coupon \
              where enterprise_id = $1 and status = 3)",
        ),
        (
            "revenue and refunds on their way are not what was paid less what was refunded",
            "select 'books' where (select coalesce(sum(balance_fen), 0) from ledger_account \
              where enterprise_id = $1 and kind in (3, 5)) <> \
             (select coalesce(sum(paid_fen - refunded_fen), 0) from bill where enterprise_id = $1)",
        ),
        (
            "the holds are not the refunds the bank is paying",
            "select 'holds' where (select coalesce(sum(balance_fen), 0) from ledger_account \
              where enterprise_id = $1 and kind = 5) <> \
             (select coalesce(sum(requested_fen), 0) from refund \
              where enterprise_id = $1 and status = 3)",
        ),
    ];
    let mut tx = db::begin_service(&w.s.owner).await.unwrap();
    let mut found = Vec::new();
    for (what, query) in CHECKS {
        let rows: Vec<String> = sqlx::query_scalar(query)
            .bind(t.enterprise)
            .fetch_all(&mut *tx)
            .await
            .unwrap();
        if !rows.is_empty() {
            found.push(format!("{what}: {rows:?}"));
        }
    }
    found
}
