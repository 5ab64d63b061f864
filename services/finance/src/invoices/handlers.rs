//! Invoice application RPCs: validate → domain → store → response, each in
//! one tenant transaction. Issuing is the [`super::issuing`] worker's.

use chrono::Utc;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, ApplicationStatus, Cancelling, InvoiceType, Invoiceable};
use super::store::{self, NewApplication};
use super::{PERMISSION, convert};
use crate::bills::domain::{BillStatus, Channel};
use crate::context::{Actor, Context};
use crate::enterprise_rules::{self, Call, Enterprise};
use crate::invoicing::client::InvoicingError;
use crate::{bills, invoice_addresses, invoice_titles};

/// ListInvoiceableBills (applyBill): paid bills with money left to invoice.
pub async fn list_invoiceable(
    ctx: &Context,
    req: Request<pb::ListInvoiceableBillsRequest>,
) -> Result<pb::ListInvoiceableBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::invoiceable_query(&message)?;
    let (rows, count, left) = store::invoiceable(&mut tx, &actor, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let lines = bills::store::lines(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::ListInvoiceableBillsResponse {
        bills: bills::convert::bills(rows, lines, Utc::now())?,
        page: Some(paging.info(count)),
        total_invoiceable_fen: left,
    })
}

/// The key an application is made once under: the Idempotency-Key header,
/// else the request's own field.
fn application_key(actor: &Actor, body_key: &str) -> Result<Option<String>, ServiceError> {
    match (&actor.idempotency_key, body_key.trim()) {
        (Some(key), _) => Ok(Some(key.clone())),
        (None, "") => Ok(None),
        (None, key) if key.len() <= 128 && key.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(key.to_owned()))
        }
        (None, _) => Err(ServiceError::invalid(
            "idempotencyKey",
            "幂等键须为 1 到 128 个可见 ASCII 字符",
        )),
    }
}

/// ApplyInvoice (and the B2B submit): checks the title, address and bills,
/// takes the amounts off the locked bills and queues the application for
/// issuing.
pub async fn apply(
    ctx: &Context,
    req: Request<pb::ApplyInvoiceRequest>,
) -> Result<pb::ApplyInvoiceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let key = application_key(&actor, &request.idempotency_key)?;
    let reservation = match idempotency::claim::<pb::ApplyInvoiceResponse>(
        &mut tx,
        actor.enterprise_id,
        "ApplyInvoice",
        key,
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let pb::ApplyInvoiceRequest {
        channel,
        invoice_type,
        title_id,
        address_id,
        bills: asked,
        expected_total_fen,
        content,
        contract_no,
        purchase_order_no,
        invoice_remark,
        idempotency_key: _,
    } = request;
    let channel = Channel::from_pb(channel).unwrap_or(Channel::Standard);
    let invoice_type = InvoiceType::from_pb(invoice_type)
        .ok_or_else(|| ServiceError::invalid("invoiceType", "请选择发票类型"))?;
    let title_id = Uuid::parse_str(title_id.trim())
        .map_err(|_| ServiceError::invalid("titleId", "请选择开票抬头"))?;
    let title = invoice_titles::store::get(&mut tx, actor.enterprise_id, title_id, false).await?;
    if invoice_type.special() {
        let missing = invoice_titles::convert::spec(&title)?.missing_for_special();
        if !missing.is_empty() {
            return Err(ServiceError::invalid(
                "titleId",
                format!(
                    "增值税专用发票须填写购买方{}，请先完善开票抬头",
                    missing.join("、")
                ),
            ));
        }
    }
    let address = match (address_id.trim(), invoice_type.paper()) {
        ("", true) => {
            return Err(ServiceError::invalid("addressId", "纸质发票请选择邮寄地址"));
        }
        ("", false) => None,
        (address_id, _) => {
            let address_id = Uuid::parse_str(address_id)
                .map_err(|_| ServiceError::invalid("addressId", "请选择邮寄地址"))?;
            Some(invoice_addresses::store::get(&mut tx, actor.enterprise_id, address_id).await?)
        }
    };
    let asked = asked
        .iter()
        .map(|b| {
            Uuid::parse_str(b.bill_id.trim())
                .map(|id| (id, b.amount_fen))
                .map_err(|_| ServiceError::invalid("bills", "账单编号无效"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ids: Vec<Uuid> = asked.iter().map(|(id, _)| *id).collect();
    // The bills' row locks: a concurrent application for the same money
    // waits here and then sees what this one took.
    let locked = bills::store::some(&mut tx, &actor, &ids, true).await?;
    let invoiceable = locked
        .iter()
        .map(|b| {
            Ok(Invoiceable {
                bill_id: b.id,
                status: known::<BillStatus>(b.status)?,
                invoiceable_fen: b.paid_fen - b.refunded_fen - b.invoiced_fen,
            })
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    let taken = domain::allocate(&asked, &invoiceable)?;
    let total: i64 = taken.iter().map(|(_, a)| a).sum();
    if expected_total_fen > 0 && expected_total_fen != total {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!(
                "可开票金额已变化（现为 {} 元），请刷新后重新确认",
                domain::yuan(total)
            ),
        ));
    }
    let application_id = Uuid::new_v4();
    let new = NewApplication {
        id: application_id,
        application_no: format!(
            "FP{}-{}",
            crate::calendar::day_of(Utc::now()).format("%Y%m%d"),
            &application_id.simple().to_string()[..8].to_uppercase()
        ),
        channel: i16::from(channel),
        invoice_type: i16::from(invoice_type),
        title: convert::snapshot(&invoice_titles::convert::title(title)),
        address: address.map(|a| convert::snapshot(&invoice_addresses::convert::address(a))),
        bills: taken
            .iter()
            .filter_map(|(id, amount)| {
                locked
                    .iter()
                    .find(|b| b.id == *id)
                    .map(|b| (b.clone(), *amount))
            })
            .collect(),
        content: content.trim().to_owned(),
        contract_no: contract_no.trim().to_owned(),
        purchase_order_no: purchase_order_no.trim().to_owned(),
        invoice_remark: invoice_remark.trim().to_owned(),
    };
    store::insert(&mut tx, &actor, &new, i16::from(ApplicationStatus::Issuing)).await?;
    store::add_invoiced(&mut tx, actor.enterprise_id, &taken).await?;
    let answer = pb::ApplyInvoiceResponse {
        application: Some(read(&mut tx, actor.enterprise_id, application_id).await?),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

/// Application `id` with its bills and invoice.
pub async fn read(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<pb::InvoiceApplication, ServiceError> {
    let row = store::get(conn, enterprise_id, id, false).await?;
    let mut bills = store::bills_of(conn, enterprise_id, &[id]).await?;
    let mut invoices = store::invoices_of(conn, enterprise_id, &[id]).await?;
    convert::application(row, &mut bills, &mut invoices)
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListInvoiceApplicationsRequest>,
) -> Result<pb::ListInvoiceApplicationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::query(&message)?;
    let (rows, total) = store::list(&mut tx, actor.enterprise_id, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let mut bills = store::bills_of(&mut tx, actor.enterprise_id, &ids).await?;
    let mut invoices = store::invoices_of(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::ListInvoiceApplicationsResponse {
        applications: rows
            .into_iter()
            .map(|row| convert::application(row, &mut bills, &mut invoices))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetInvoiceApplicationRequest>,
) -> Result<pb::GetInvoiceApplicationResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let enterprise = Enterprise::of(&req)?;
    let pb::GetInvoiceApplicationRequest { application_id } = req.into_inner();
    let application = read(&mut tx, actor.enterprise_id, id(&application_id)?).await?;
    enterprise.admit(Call::GetInvoiceApplication(enterprise_rules::channel(
        application.channel,
    )))?;
    db::end_read(tx);
    Ok(pb::GetInvoiceApplicationResponse {
        application: Some(application),
    })
}

/// The amounts application `id` took, as negative deltas that free them.
async fn freed(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<Vec<(Uuid, i64)>, ServiceError> {
    Ok(store::bills_of(conn, enterprise_id, &[id])
        .await?
        .into_iter()
        .map(|b| (b.bill_id, -b.amount_fen))
        .collect())
}

/// Frees the amounts of application `id` and ends it as `status`.
pub async fn close(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    status: ApplicationStatus,
    reason: &str,
    by: &str,
) -> Result<(), ServiceError> {
    let amounts = freed(conn, enterprise_id, id).await?;
    store::add_invoiced(conn, enterprise_id, &amounts).await?;
    store::close(conn, enterprise_id, id, i16::from(status), reason, by).await
}

/// A platform failure as the user sees it.
fn platform_error(err: InvoicingError) -> ServiceError {
    match err {
        InvoicingError::Invalid { field, message } => ServiceError::invalid(&field, message),
        InvoicingError::Refused { message, .. } => {
            ServiceError::new(ErrorCode::Conflict, format!("开票平台拒绝：{message}"))
        }
        err => {
            tracing::warn!(error = %err, "Invoicing platform failed.");
            ServiceError::new(ErrorCode::Unavailable, "开票平台暂不可用，请稍后重试")
        }
    }
}

/// CancelInvoiceApplication: withdraws an application not yet sent to the
/// platform, or reverses its issued invoice with a red-letter one (once,
/// with its reason); either frees the amounts to be invoiced again.
pub async fn cancel(
    ctx: &Context,
    req: Request<pb::CancelInvoiceApplicationRequest>,
) -> Result<pb::CancelInvoiceApplicationResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CancelInvoiceApplicationRequest {
        application_id,
        reason,
    } = req.into_inner();
    let application_id = id(&application_id)?;
    let reason = reason.trim();
    // Locked: the issuing worker, a second cancel and this one take turns.
    let row = store::get(&mut tx, actor.enterprise_id, application_id, true).await?;
    let status = known::<ApplicationStatus>(row.status)?;
    if domain::cancelling(status, row.attempts)? == Cancelling::Reverse {
        if reason.is_empty() {
            return Err(ServiceError::invalid("reason", "请填写红冲原因"));
        }
        let invoicing = ctx.invoicing.as_ref().ok_or_else(|| {
            ServiceError::new(ErrorCode::Unavailable, "开票平台未配置，暂不能红冲")
        })?;
        let invoice = store::invoices_of(&mut tx, actor.enterprise_id, &[application_id])
            .await?
            .pop()
            .ok_or_else(ServiceError::not_found)?;
        let red = invoicing
            .reverse(
                &format!("R{}", application_id.simple()),
                &invoice.invoice_number,
                domain::red_reason(reason),
            )
            .await
            .map_err(platform_error)?;
        store::reversed(
            &mut tx,
            actor.enterprise_id,
            application_id,
            &red.invoice_no,
            red.issued_at.with_timezone(&Utc),
            reason,
        )
        .await?;
    }
    close(
        &mut tx,
        actor.enterprise_id,
        application_id,
        ApplicationStatus::Cancelled,
        reason,
        &actor.name,
    )
    .await?;
    let application = read(&mut tx, actor.enterprise_id, application_id).await?;
    tx.commit().await?;
    Ok(pb::CancelInvoiceApplicationResponse {
        application: Some(application),
    })
}
