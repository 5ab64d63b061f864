//! Monthly bill RPCs (B2B reconciliation permission), each one read-only
//! tenant transaction under the caller's reach.

use chrono::Utc;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::convert;
use super::store::{self, COUNTED, MonthQuery};
use crate::Context;
use crate::bills::store::BillQuery;
use crate::bills::{self, RECONCILIATION};
use crate::calendar::Month;
use crate::context::Actor;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListMonthlyBillsRequest>,
) -> Result<pb::ListMonthlyBillsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, RECONCILIATION).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let query = convert::query(&message)?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    let kinds = match (rows.last(), rows.first()) {
        (Some(oldest), Some(newest)) => {
            let bills = counted(
                Month::from_code(oldest.period),
                Month::from_code(newest.period),
            );
            store::kinds(&mut tx, &actor, &bills).await?
        }
        _ => Vec::new(),
    };
    db::end_read(tx);
    Ok(pb::ListMonthlyBillsResponse {
        monthly_bills: rows
            .into_iter()
            .map(|row| convert::monthly(actor.enterprise_id, row, &kinds))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

/// The bills a month range counts (every status but CANCELLED).
pub fn counted(from: Option<Month>, to: Option<Month>) -> BillQuery {
    BillQuery {
        statuses: COUNTED.to_vec(),
        from_month: from.map(Month::code),
        to_month: to.map(Month::code),
        ..BillQuery::default()
    }
}

/// GetMonthlyBill: by its id or its month (exactly one); 4004 for a month
/// without bills the caller sees.
pub async fn get(
    ctx: &Context,
    req: Request<pb::GetMonthlyBillRequest>,
) -> Result<pb::GetMonthlyBillResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RECONCILIATION).await?;
    let pb::GetMonthlyBillRequest {
        monthly_bill_id,
        month,
    } = req.into_inner();
    let month = match (
        monthly_bill_id.trim(),
        Month::optional("month", month.as_ref())?,
    ) {
        ("", Some(month)) => month,
        (id, None) if !id.is_empty() => bills::convert::monthly_month(id, actor.enterprise_id)
            .ok_or_else(ServiceError::not_found)?,
        _ => {
            return Err(ServiceError::invalid(
                "monthlyBillId",
                "请指定月账单编号或月份中的一个",
            ));
        }
    };
    let query = MonthQuery {
        bills: counted(Some(month), Some(month)),
        ..MonthQuery::default()
    };
    let first = Paging { page: 1, size: 5 };
    let row = store::list(&mut tx, &actor, &query, first)
        .await?
        .0
        .pop()
        .ok_or_else(ServiceError::not_found)?;
    let kinds = store::kinds(&mut tx, &actor, &query.bills).await?;
    // Every bill of the month, newest issued first (a month holds tens).
    let rows = bills::store::after(&mut tx, &actor, &query.bills, None, i64::MAX).await?;
    let ids: Vec<Uuid> = rows.iter().map(|b| b.id).collect();
    let lines = bills::store::lines(&mut tx, actor.enterprise_id, &ids).await?;
    db::end_read(tx);
    Ok(pb::GetMonthlyBillResponse {
        monthly_bill: Some(convert::monthly(actor.enterprise_id, row, &kinds)?),
        bills: bills::convert::bills(rows, lines, Utc::now())?,
    })
}
