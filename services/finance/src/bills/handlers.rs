//! Bill RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach. Raising a bill ([`raise`]) is
//! shared by CreateBill, orders and the event consumers.

use chrono::Utc;
use fleetdesk_kit::list::{BATCH_LIMIT, Paging};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::finance::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, BillStatus, CheckedBill, NewBill};
use super::{PERMISSION, RECONCILIATION, convert, export, store};
use crate::context::{self, Actor, Context};
use crate::{exports, filters};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListBillsRequest>,
) -> Result<pb::ListBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let mut query = convert::query(&message, actor.enterprise_id)?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, totals) = store::list(&mut tx, &actor, &query, paging).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let lines = store::lines(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::ListBillsResponse {
        bills: convert::bills(rows, lines, Utc::now())?,
        page: Some(paging.info(totals.count)),
        totals: Some(pb::BillTotals {
            payable_fen: totals.payable_fen,
            paid_fen: totals.paid_fen,
            outstanding_fen: totals.outstanding_fen,
        }),
    })
}

/// The bill `id` with its lines, as the caller sees it; 4004 when it does not.
pub async fn read(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<pb::Bill, ServiceError> {
    let row = store::get(conn, actor, id).await?;
    let mut lines = store::lines(conn, actor.enterprise_id, &[id]).await?;
    convert::bill(row, &mut lines, Utc::now())
}

/// CreateBill: service callers only; the same source answers the first bill.
pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateBillRequest>,
) -> Result<pb::CreateBillResponse, ServiceError> {
    let enterprise_id = req.get_ref().enterprise_id.clone();
    let (actor, mut tx) = context::for_enterprise(&ctx.pool, &req, &enterprise_id).await?;
    let new = convert::new_bill(req.into_inner())?;
    let id = raise(&mut tx, &actor, new).await?;
    let bill = read(&mut tx, &actor, id).await?;
    tx.commit().await?;
    Ok(pb::CreateBillResponse { bill: Some(bill) })
}

/// Raises `new` for `actor`'s enterprise once per source: the id of the new
/// bill, or of the first one raised from the same source when it asked for
/// the same amounts (another amount is 4009). Racing raises of one source
/// meet on its unique key; the loser answers the winner's bill.
pub async fn raise(
    conn: &mut PgConnection,
    actor: &Actor,
    new: NewBill,
) -> Result<Uuid, ServiceError> {
    let checked = new.check(Utc::now())?;
    let id = Uuid::new_v4();
    let bill_no = bill_no(&checked, id);
    if !store::insert(conn, actor, id, &bill_no, &checked).await? {
        let source = &checked.bill.source;
        let (first, fingerprint) = store::by_source(
            conn,
            actor.enterprise_id,
            source.service.trim(),
            source.id.trim(),
        )
        .await?
        .ok_or_else(ServiceError::not_found)?;
        domain::same_raise(&fingerprint, &checked.fingerprint())?;
        return Ok(first);
    }
    Ok(id)
}

/// e.g. ZD202611-3F2A9C1B: the period and the bill id's first digits.
fn bill_no(checked: &CheckedBill, id: Uuid) -> String {
    let digits = id.simple().to_string()[..8].to_uppercase();
    format!("ZD{}-{digits}", checked.bill.period.code())
}

/// ConfirmBills: every bill found, reached and PENDING_CONFIRMATION, and
/// their payable the total the user saw; all confirmed or disputed together.
pub async fn confirm(
    ctx: &Context,
    req: Request<pb::ConfirmBillsRequest>,
) -> Result<pb::ConfirmBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RECONCILIATION).await?;
    let pb::ConfirmBillsRequest {
        bill_ids,
        accepted,
        expected_total_fen,
        dispute_reason,
    } = req.into_inner();
    let mut ids = filters::ids("billIds", &bill_ids, "账单编号无效")?;
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(ServiceError::invalid("billIds", "请选择账单"));
    }
    if ids.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "billIds",
            format!("每次最多确认{BATCH_LIMIT}张账单"),
        ));
    }
    let dispute_reason = dispute_reason.trim();
    if !accepted && dispute_reason.is_empty() {
        return Err(ServiceError::invalid("disputeReason", "请填写异议原因"));
    }
    let rows = store::some(&mut tx, &actor, &ids, true).await?;
    if rows.len() != ids.len() {
        return Err(ServiceError::not_found());
    }
    let total: i64 = rows.iter().map(|r| r.payable_fen).sum();
    if total != expected_total_fen {
        return Err(ServiceError::taken(
            "expectedTotalFen",
            "账单金额已变化，请刷新后重试",
        ));
    }
    for row in &rows {
        let status = fleetdesk_kit::codes::known::<BillStatus>(row.status)?;
        let next = domain::reconciled(status, accepted, row.payable_fen)?;
        store::reconcile(&mut tx, &actor, row.id, next, accepted, dispute_reason).await?;
    }
    let rows = store::some(&mut tx, &actor, &ids, false).await?;
    let lines = store::lines(&mut tx, actor.enterprise_id, &ids).await?;
    tx.commit().await?;
    Ok(pb::ConfirmBillsResponse {
        bills: convert::bills(rows, lines, Utc::now())?,
    })
}

/// ExportBills: queues the export of the bill list (`filter`) for the caller.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportBillsRequest>,
) -> Result<pb::ExportBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = export::job(&filter, actor.enterprise_id)?;
    let job = exports::start(&mut tx, &actor, job).await?;
    tx.commit().await?;
    Ok(pb::ExportBillsResponse { job: Some(job) })
}
