//! Demo data of finance's money: demo enterprise A's prepaid balance (a
//! top-up from the bank), a balance payment behind every bill the finance
//! seed left paid or partly paid (posted on the ledger, MAIN → REVENUE, so
//! the books agree with the bills), and one completed refund to the
//! balance of a paid bill not yet invoiced.
//!
//! Runs after [`crate::finance`] (whose bills' paid amounts are already
//! set: the payments record them, nothing is paid twice). Deterministic ids
//! (`demo_id`); idempotent: an enterprise with payments is skipped whole,
//! and everything is one transaction.

use chrono::{DateTime, Utc};
use fleetdesk_finance::bills::domain::Channel;
use fleetdesk_finance::ledger::{self, Transfer, TransferKind};
use fleetdesk_finance::payments::domain::{Allocation, PaymentMethod, PaymentStatus, payment_no};
use fleetdesk_finance::payments::store::{self as payments, NewPayment};
use fleetdesk_finance::refunds::domain::{RefundMethod, RefundReason, RefundStatus, refund_no};
use fleetdesk_finance::refunds::store::{self as refunds, NewRefund};
use fleetdesk_kit::{db, demo_id};
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// What stays on the prepaid balance after the payments, in fen.
const BALANCE_FEN: i64 = 8_600_000;

/// What the run wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub payments: usize,
    pub refunds: usize,
}

/// A bill the finance seed left (partly) paid.
#[derive(Debug, sqlx::FromRow)]
struct PaidBill {
    id: Uuid,
    org_id: Uuid,
    bill_no: String,
    paid_fen: i64,
    paid_time: Option<DateTime<Utc>>,
    invoiced_fen: i64,
}

pub async fn run(finance: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let enterprise = demo_id("enterprise:a");
    let mut tx = db::begin_service(finance).await?;
    db::enter_tenant(&mut tx, enterprise).await?;
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from bill_payment where enterprise_id = $1)")
            .bind(enterprise)
            .fetch_one(&mut *tx)
            .await?;
    if exists {
        return Ok(Report::default());
    }
    let actor = fleetdesk_finance::Actor {
        name: "系统".to_owned(),
        user_id: None,
        ..crate::demo_admin()
    };
    let paid: Vec<PaidBill> = sqlx::query_as(
        "select id, org_id, bill_no, paid_fen, paid_time, invoiced_fen from bill \
         where enterprise_id = $1 and paid_fen > 0 order by issue_time, id",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = paid.iter().map(|p| p.paid_fen).sum();
    let failed = |e: fleetdesk_kit::ServiceError| anyhow::anyhow!("demo money: {}", e.message);
    ledger::top_up(
        &mut tx,
        enterprise,
        total + BALANCE_FEN,
        "demo:top-up",
        "演示充值（银行转入）",
    )
    .await?;
    let books = ledger::books(&mut tx, enterprise).await?;
    let mut report = Report::default();
    let mut refundable = None;
    for PaidBill {
        id: bill_id,
        org_id,
        bill_no,
        paid_fen,
        paid_time,
        invoiced_fen,
    } in &paid
    {
        let id = demo_id(&format!("payment:{bill_id}"));
        let at = paid_time.unwrap_or(now);
        let no = payment_no(id, at);
        let allocations = [Allocation {
            bill_id: *bill_id,
            bill_no: bill_no.clone(),
            amount_fen: *paid_fen,
        }];
        payments::insert(
            &mut tx,
            &actor,
            &NewPayment {
                id,
                org_id: *org_id,
                payment_no: &no,
                method: PaymentMethod::PrepaidBalance,
                status: PaymentStatus::Succeeded,
                amount_fen: *paid_fen,
                coupon: None,
                payer_name: "",
                payer_bank_name: "",
                payer_masked_account: "",
                expire_time: None,
                paid_time: Some(at),
                allocations: &allocations,
            },
        )
        .await
        .map_err(failed)?;
        let transfer = Transfer::between(
            enterprise,
            TransferKind::BalancePayment,
            id.to_string(),
            books.main,
            books.revenue,
            *paid_fen,
        )
        .memo(&format!("支付账单 {bill_no}"));
        ledger::transfer(&mut tx, &transfer).await?;
        sqlx::query("update bill_payment set created_at = $2 where id = $1")
            .bind(id)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        report.payments += 1;
        if *invoiced_fen == 0 && refundable.is_none() {
            refundable = Some((*bill_id, *org_id, bill_no.clone(), *paid_fen, id));
        }
    }
    if let Some((bill_id, org_id, bill_no, paid_fen, payment_id)) = refundable {
        let id = demo_id("refund:a-overpayment");
        let no = refund_no(id, now);
        let amount_fen = paid_fen / 5;
        refunds::insert(
            &mut tx,
            &actor,
            &NewRefund {
                id,
                org_id,
                refund_no: &no,
                // Enterprise A is B2B: its refunds are of the B2B screens.
                channel: Channel::B2b,
                bill_id,
                bill_no: &bill_no,
                order_id: None,
                reason: RefundReason::BillingError,
                reason_detail: "计费有误，多收部分退回预付余额",
                amount_fen,
                method: RefundMethod::PrepaidBalance,
                payee_name: "",
                payee_bank_name: "",
                payee_masked_account: "",
            },
        )
        .await
        .map_err(failed)?;
        let transfer = Transfer::between(
            enterprise,
            TransferKind::BalanceRefund,
            id.to_string(),
            books.revenue,
            books.main,
            amount_fen,
        )
        .memo(&format!("退款 {no}（账单 {bill_no}）"));
        ledger::transfer(&mut tx, &transfer).await?;
        refunds::confirm(
            &mut tx,
            &actor,
            id,
            RefundMethod::PrepaidBalance,
            RefundStatus::Completed,
            Some(payment_id),
        )
        .await
        .map_err(failed)?;
        refunds::add_refunded(&mut tx, enterprise, bill_id, amount_fen, "系统")
            .await
            .map_err(failed)?;
        report.refunds += 1;
    }
    tx.commit().await?;
    Ok(report)
}
