//! Payment RPCs: PayBill (validate → lock the bills → allocate → move the
//! money or ask the bank → the answer, stored under the idempotency key in
//! the same transaction), ListBillPayments and GetBillPayment.

use chrono::{Duration, Utc};
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::{BATCH_LIMIT, Paging};
use fleetdesk_kit::{ErrorCode, ServiceError, codes, db};
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Allocation, Owed, PaymentMethod, PaymentStatus, Route};
use super::store::{self, NewPayment};
use super::{LIST_PERMISSIONS, PAY_PERMISSION, READ_PERMISSIONS, convert};
use crate::bank::BankError;
use crate::bills::domain::{BillStatus, Channel};
use crate::context::{self, Actor, Context};
use crate::coupons::apply::Discount;
use crate::{filters, ledger};

/// How long a bank payment keeps its bills from being paid another way.
const BANK_PAYMENT_EXPIRES: Duration = Duration::minutes(30);

pub async fn pay(
    ctx: &Context,
    req: Request<pb::PayBillRequest>,
) -> Result<pb::PayBillResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PAY_PERMISSION).await?;
    let key = context::money_key(&actor, &req.get_ref().idempotency_key)?;
    let request = req.into_inner();
    // Racing requests with one key wait here for the first one's commit
    // and then answer what it stored.
    let reservation = match idempotency::claim::<pb::PayBillResponse>(
        &mut tx,
        actor.enterprise_id,
        "PayBill",
        Some(key),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let pb::PayBillRequest {
        bill_ids,
        amount_fen,
        expected_total_fen,
        method,
        coupon_id,
        voucher: _,
        payer_name,
        payer_bank_name,
        payer_account,
        return_url: _,
        idempotency_key: _,
    } = request;
    let method = PaymentMethod::from_pb(method)
        .ok_or_else(|| ServiceError::invalid("method", "请选择支付方式"))?;
    let route = method.route()?;
    let coupon_id = match coupon_id.trim() {
        "" => None,
        id => Some(
            fleetdesk_kit::convert::id(id)
                .map_err(|_| ServiceError::invalid("couponId", "优惠券编号无效"))?,
        ),
    };
    // A bank payment's coupon would have to be held until the callback;
    // only the balance route applies one for now.
    if coupon_id.is_some() && route == Route::Bank {
        return Err(ServiceError::invalid("couponId", "网银支付暂不支持优惠券"));
    }
    let mut ids = filters::ids("billIds", &bill_ids, "账单编号无效")?;
    ids.sort_unstable();
    ids.dedup();
    if ids.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "billIds",
            format!("每次最多支付{BATCH_LIMIT}张账单"),
        ));
    }
    store::lock_bills(&mut tx, actor.enterprise_id, &ids).await?;
    let rows = crate::bills::store::some(&mut tx, &actor, &ids, false).await?;
    if rows.len() != ids.len() {
        return Err(ServiceError::not_found());
    }
    let owed = rows
        .iter()
        .map(|r| {
            Ok(Owed {
                bill_id: r.id,
                bill_no: r.bill_no.clone(),
                channel: codes::known::<Channel>(r.channel)?,
                status: codes::known::<BillStatus>(r.status)?,
                outstanding_fen: r.outstanding_fen,
            })
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    let allocations = domain::allocate(&owed, amount_fen)?;
    let total = domain::total(&allocations);
    let coupon = match coupon_id {
        Some(coupon_id) => {
            Some(crate::coupons::apply::discount(&mut tx, &actor, coupon_id, &rows, total).await?)
        }
        None => None,
    };
    // What moves: the bills' total less what the coupon pays.
    let paying = total - coupon.map_or(0, |c| c.discount_fen);
    domain::same_total(expected_total_fen, paying)?;
    if let Some(bill_no) = store::pending_on(&mut tx, actor.enterprise_id, &ids).await? {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!("账单{bill_no}有待银行确认的支付，请稍后再试"),
        ));
    }
    let org_id = rows
        .iter()
        .find(|r| r.id == allocations[0].bill_id)
        .map_or(rows[0].org_id, |r| r.org_id);
    let now = Utc::now();
    let id = Uuid::new_v4();
    let payment_no = domain::payment_no(id, now);
    let masked = domain::masked_account(&payer_account);
    let mut new = NewPayment {
        id,
        org_id,
        payment_no: &payment_no,
        method,
        status: PaymentStatus::Succeeded,
        amount_fen: paying,
        coupon,
        payer_name: payer_name.trim(),
        payer_bank_name: payer_bank_name.trim(),
        payer_masked_account: &masked,
        expire_time: None,
        paid_time: Some(now),
        allocations: &allocations,
    };
    match route {
        Route::Balance => {
            store::insert(&mut tx, &actor, &new).await?;
            pay_from_balance(&mut tx, &actor, id, &allocations, coupon).await?;
        }
        Route::Bank => {
            let bank = ctx.bank.as_ref().ok_or_else(|| {
                ServiceError::invalid("method", "网银支付暂未开通，请选择余额支付")
            })?;
            new.status = PaymentStatus::Pending;
            new.paid_time = None;
            new.expire_time = Some(now + BANK_PAYMENT_EXPIRES);
            store::insert(&mut tx, &actor, &new).await?;
            // The bank's order number is the payment's id: asking again
            // (a retry) answers the same order.
            let order = bank
                .create_order(
                    &merchant_no(id),
                    paying,
                    Some(payer_name.trim()).filter(|n| !n.is_empty()),
                )
                .await
                .map_err(refused_by_bank)?;
            store::set_bank_order(
                &mut tx,
                actor.enterprise_id,
                id,
                &order.order_id,
                &order.pay_url,
            )
            .await?;
        }
    }
    let payment = read(&mut tx, &actor, id).await?;
    let answer = pb::PayBillResponse {
        payment: Some(payment),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

/// The prepaid balance pays the bills at once, in the caller's
/// transaction: the coupon's part COUPON_FUNDING → REVENUE (the coupon
/// used), the rest MAIN → REVENUE, both keyed by the payment, and each
/// bill's paid amount.
async fn pay_from_balance(
    conn: &mut PgConnection,
    actor: &Actor,
    payment_id: Uuid,
    allocations: &[Allocation],
    coupon: Option<Discount>,
) -> Result<(), ServiceError> {
    let books = ledger::books(conn, actor.enterprise_id).await?;
    let memo = memo(allocations);
    let discount_fen = coupon.map_or(0, |c| c.discount_fen);
    if let Some(coupon) = coupon.filter(|c| c.discount_fen > 0) {
        crate::coupons::apply::consume(conn, actor, &coupon, payment_id).await?;
        let funded = ledger::Transfer::between(
            actor.enterprise_id,
            ledger::TransferKind::CouponDiscount,
            payment_id.to_string(),
            books.coupon_funding,
            books.revenue,
            coupon.discount_fen,
        )
        .by(actor.user_id, &actor.name)
        .memo(&memo);
        ledger::transfer(conn, &funded).await?;
    }
    let paying = domain::total(allocations) - discount_fen;
    if paying > 0 {
        let paid = ledger::Transfer::between(
            actor.enterprise_id,
            ledger::TransferKind::BalancePayment,
            payment_id.to_string(),
            books.main,
            books.revenue,
            paying,
        )
        .by(actor.user_id, &actor.name)
        .memo(&memo);
        ledger::transfer(conn, &paid).await?;
    }
    store::apply_to_bills(conn, actor.enterprise_id, allocations, &actor.name).await
}

/// A transfer's note: the bills it paid.
pub fn memo(allocations: &[Allocation]) -> String {
    let nos: Vec<&str> = allocations.iter().map(|a| a.bill_no.as_str()).collect();
    format!("支付账单 {}", nos.join("、"))
}

/// The bank's merchant number of payment or refund `id` (32 hex digits).
pub fn merchant_no(id: Uuid) -> String {
    id.simple().to_string()
}

/// A bank failure as users read it: a passing one is 5003 (retry with the
/// same key), a refusal 4009 with the bank's message.
pub fn refused_by_bank(err: BankError) -> ServiceError {
    tracing::warn!(error = %err, "The bank did not accept the request.");
    match err {
        e if e.is_transient() => {
            ServiceError::new(ErrorCode::Unavailable, "银行暂时无法受理，请稍后重试")
        }
        BankError::Refused { message, .. } => ServiceError::new(
            ErrorCode::Conflict,
            format!("银行拒绝了本次请求：{message}"),
        ),
        BankError::Http(_) => {
            ServiceError::new(ErrorCode::Unavailable, "银行暂时无法受理，请稍后重试")
        }
    }
}

/// The payment `id` with its allocations, as the caller sees it.
pub async fn read(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<pb::BillPayment, ServiceError> {
    let row = store::get(conn, actor, id).await?;
    let mut allocations = store::allocations(conn, actor.enterprise_id, &[id]).await?;
    convert::payment(row, &mut allocations)
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListBillPaymentsRequest>,
) -> Result<pb::ListBillPaymentsResponse, ServiceError> {
    let (actor, mut tx) = context::begin_read_any(&ctx.pool, &req, LIST_PERMISSIONS).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::query(message)?;
    let (rows, count) = store::list(&mut tx, &actor, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let mut allocations = store::allocations(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::ListBillPaymentsResponse {
        payments: rows
            .into_iter()
            .map(|row| convert::payment(row, &mut allocations))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(count)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetBillPaymentRequest>,
) -> Result<pb::GetBillPaymentResponse, ServiceError> {
    let (actor, mut tx) = context::begin_read_any(&ctx.pool, &req, READ_PERMISSIONS).await?;
    let pb::GetBillPaymentRequest { payment_id } = req.into_inner();
    let payment = read(&mut tx, &actor, fleetdesk_kit::convert::id(&payment_id)?).await?;
    db::end_read(tx);
    Ok(pb::GetBillPaymentResponse {
        payment: Some(payment),
    })
}

/// The most payments a bill's detail shows (newest first); the payment list
/// filtered by the bill has them all.
const BILL_PAYMENTS_SHOWN: i64 = 100;

/// GetBill: the bill as bills reads it, with the payments applied to it,
/// newest first (composed here: payments come after bills).
pub async fn bill_detail(
    ctx: &Context,
    req: Request<pb::GetBillRequest>,
) -> Result<pb::GetBillResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, crate::bills::PERMISSION).await?;
    let pb::GetBillRequest { bill_id } = req.into_inner();
    let id = fleetdesk_kit::convert::id(&bill_id)?;
    let bill = crate::bills::handlers::read(&mut tx, &actor, id).await?;
    let query = store::PaymentQuery {
        bill_id: Some(id),
        ..Default::default()
    };
    let paging = Paging {
        page: 1,
        size: BILL_PAYMENTS_SHOWN,
    };
    let (rows, _) = store::list(&mut tx, &actor, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let mut allocations = store::allocations(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::GetBillResponse {
        bill: Some(bill),
        payments: rows
            .into_iter()
            .map(|row| convert::payment(row, &mut allocations))
            .collect::<Result<_, _>>()?,
    })
}
