//! Refund RPCs: CreateRefund and ConfirmRefund (money writes: an
//! idempotency key, the first answer stored with the effect), CancelRefund,
//! ListRefunds and GetRefund. Locks are taken refund first, then its bill,
//! as the bank's callbacks take them.

use chrono::Utc;
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, codes, db};
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, RefundMethod, RefundReason, RefundStatus};
use super::store::{self, NewRefund, RefundRow};
use super::{PERMISSION, convert};
use crate::bills::domain::Channel;
use crate::context::{self, Actor, Context};
use crate::enterprise_rules::{self, Call, Enterprise};
use crate::payments::domain::{PaymentMethod, masked_account};
use crate::payments::handlers::{merchant_no, refused_by_bank};
use crate::{ledger, payments};

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateRefundRequest>,
) -> Result<pb::CreateRefundResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let enterprise = Enterprise::of(&req)?;
    let key = context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::CreateRefundResponse>(
        &mut tx,
        actor.enterprise_id,
        "CreateRefund",
        Some(key),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let pb::CreateRefundRequest {
        channel,
        bill_id,
        reason,
        reason_detail,
        amount_fen,
        method,
        payee_name,
        payee_bank_name,
        payee_account,
        attachments: _,
        idempotency_key: _,
    } = request;
    let bill_id = fleetdesk_kit::convert::id(&bill_id)
        .map_err(|_| ServiceError::invalid("billId", "请选择要退款的账单"))?;
    let reason = RefundReason::from_pb(reason)
        .ok_or_else(|| ServiceError::invalid("reason", "请选择退款原因"))?;
    let reason_detail = reason_detail.trim();
    if reason_detail.chars().count() > 200 {
        return Err(ServiceError::invalid(
            "reasonDetail",
            "退款说明不能超过 200 个字",
        ));
    }
    let method = RefundMethod::from_pb(method)
        .ok_or_else(|| ServiceError::invalid("method", "请选择退款方式"))?
        .check()?;
    // The bill locked first: a racing refund of it waits, then counts this one.
    payments::store::lock_bills(&mut tx, actor.enterprise_id, &[bill_id]).await?;
    let bill = crate::bills::store::get(&mut tx, &actor, bill_id).await?;
    // The refund belongs to the screen it is asked on (a B2B enterprise
    // refunds every bill of its own on the B2B screens, whatever the bill's
    // settlement channel); unset, the bill's.
    let channel = match Channel::from_pb(channel) {
        Some(asked) => asked,
        None => codes::known::<Channel>(bill.channel)?,
    };
    enterprise.admit(Call::CreateRefund(enterprise_rules::channel(channel.pb())))?;
    let in_flight = store::in_flight(&mut tx, actor.enterprise_id, bill_id).await?;
    domain::check_amount(
        amount_fen,
        domain::refundable(bill.paid_fen, bill.refunded_fen, in_flight),
    )?;
    let now = Utc::now();
    let id = Uuid::new_v4();
    let refund_no = domain::refund_no(id, now);
    let masked = masked_account(&payee_account);
    store::insert(
        &mut tx,
        &actor,
        &NewRefund {
            id,
            org_id: bill.org_id,
            refund_no: &refund_no,
            channel,
            bill_id,
            bill_no: &bill.bill_no,
            order_id: bill.order_id,
            reason,
            reason_detail,
            amount_fen,
            method,
            payee_name: payee_name.trim(),
            payee_bank_name: payee_bank_name.trim(),
            payee_masked_account: &masked,
        },
    )
    .await?;
    let answer = pb::CreateRefundResponse {
        refund: Some(read(&mut tx, &actor, id).await?),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

/// ConfirmRefund: the enterprise's confirmation approves the refund at its
/// requested amount (no operator review is built) and pays it out — to the
/// prepaid balance at once, or back through the bank payment that paid
/// the bill (two-phase: held now, settled by the bank's callback).
pub async fn confirm(
    ctx: &Context,
    req: Request<pb::ConfirmRefundRequest>,
) -> Result<pb::ConfirmRefundResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let enterprise = Enterprise::of(&req)?;
    let key = context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    let reservation = match idempotency::claim::<pb::ConfirmRefundResponse>(
        &mut tx,
        actor.enterprise_id,
        "ConfirmRefund",
        Some(key),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let pb::ConfirmRefundRequest {
        refund_id,
        expected_amount_fen,
        method,
        payee_name: _,
        payee_bank_name: _,
        payee_account: _,
        idempotency_key: _,
    } = request;
    let id = fleetdesk_kit::convert::id(&refund_id)?;
    let refund = store::get(&mut tx, &actor, id, true).await?;
    enterprise.admit(Call::ConfirmRefund(enterprise_rules::channel(
        refund.channel.into(),
    )))?;
    domain::require_open(codes::known::<RefundStatus>(refund.status)?)?;
    domain::same_amount(expected_amount_fen, refund.requested_fen)?;
    let method = match RefundMethod::from_pb(method) {
        Some(chosen) => chosen,
        None => codes::known::<RefundMethod>(refund.method)?,
    }
    .check()?;
    payments::store::lock_bills(&mut tx, actor.enterprise_id, &[refund.bill_id]).await?;
    let amount = refund.requested_fen;
    let memo = format!("退款 {}（账单 {}）", refund.refund_no, refund.bill_no);
    let route = match method {
        RefundMethod::PrepaidBalance => None,
        _ => Some(
            store::route(&mut tx, actor.enterprise_id, refund.bill_id)
                .await?
                .ok_or_else(|| {
                    ServiceError::new(ErrorCode::Conflict, "该账单没有可原路退回的支付")
                })?,
        ),
    };
    let through_bank = match &route {
        Some(route) => {
            codes::known::<PaymentMethod>(route.method)? != PaymentMethod::PrepaidBalance
        }
        None => false,
    };
    if !through_bank {
        to_balance(&mut tx, &actor, &refund, &memo).await?;
        store::confirm(
            &mut tx,
            &actor,
            id,
            method,
            RefundStatus::Completed,
            route.map(|r| r.payment_id),
        )
        .await?;
    } else if let Some(route) = route {
        if amount > route.room_fen {
            return Err(ServiceError::invalid(
                "amountFen",
                "退款金额超过原支付可退金额，请选择退至预付余额",
            ));
        }
        let bank = ctx.bank.as_ref().ok_or_else(|| {
            ServiceError::invalid("method", "银行退款暂未开通，请选择退至预付余额")
        })?;
        ledger::hold_refund(&mut tx, actor.enterprise_id, id, amount, &memo).await?;
        store::confirm(
            &mut tx,
            &actor,
            id,
            method,
            RefundStatus::Processing,
            Some(route.payment_id),
        )
        .await?;
        // The bank's refund number is the refund's id: asking again (a
        // retry) answers the same refund.
        let paid_out = bank
            .create_refund(&merchant_no(id), &route.bank_order_id, amount, Some(&memo))
            .await
            .map_err(refused_by_bank)?;
        store::set_transaction(&mut tx, actor.enterprise_id, id, &paid_out.refund_id).await?;
    }
    let answer = pb::ConfirmRefundResponse {
        refund: Some(read(&mut tx, &actor, id).await?),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

/// Pays `refund` to the prepaid balance at once: REVENUE → MAIN keyed by
/// the refund, and the bill's refunded amount.
async fn to_balance(
    conn: &mut PgConnection,
    actor: &Actor,
    refund: &RefundRow,
    memo: &str,
) -> Result<(), ServiceError> {
    let books = ledger::books(conn, actor.enterprise_id).await?;
    let transfer = ledger::Transfer::between(
        actor.enterprise_id,
        ledger::TransferKind::BalanceRefund,
        refund.id.to_string(),
        books.revenue,
        books.main,
        refund.requested_fen,
    )
    .by(actor.user_id, &actor.name)
    .memo(memo);
    ledger::transfer(conn, &transfer).await?;
    store::add_refunded(
        conn,
        actor.enterprise_id,
        refund.bill_id,
        refund.requested_fen,
        &actor.name,
    )
    .await
}

/// CancelRefund: an open refund is withdrawn; one already cancelled
/// answers as it is (a repeat), any other is 4009.
pub async fn cancel(
    ctx: &Context,
    req: Request<pb::CancelRefundRequest>,
) -> Result<pb::CancelRefundResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CancelRefundRequest { refund_id, reason } = req.into_inner();
    let id = fleetdesk_kit::convert::id(&refund_id)?;
    let refund = store::get(&mut tx, &actor, id, true).await?;
    let status = codes::known::<RefundStatus>(refund.status)?;
    if status != RefundStatus::Cancelled {
        domain::require_open(status)?;
        let reason = reason.trim();
        if reason.chars().count() > 200 {
            return Err(ServiceError::invalid("reason", "撤销原因不能超过 200 个字"));
        }
        store::cancel(&mut tx, &actor, id, reason).await?;
    }
    let refund = read(&mut tx, &actor, id).await?;
    tx.commit().await?;
    Ok(pb::CancelRefundResponse {
        refund: Some(refund),
    })
}

async fn read(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<pb::Refund, ServiceError> {
    convert::refund(store::get(conn, actor, id, false).await?)
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListRefundsRequest>,
) -> Result<pb::ListRefundsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::query(message)?;
    let (rows, count) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListRefundsResponse {
        refunds: rows
            .into_iter()
            .map(convert::refund)
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetRefundRequest>,
) -> Result<pb::GetRefundResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetRefundRequest { refund_id } = req.into_inner();
    let refund = read(&mut tx, &actor, fleetdesk_kit::convert::id(&refund_id)?).await?;
    db::end_read(tx);
    Ok(pb::GetRefundResponse {
        refund: Some(refund),
    })
}
