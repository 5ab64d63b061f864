//! GetBillDashboard: one read-only tenant transaction under the caller's reach.

use chrono::Utc;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;

use super::PERMISSION;
use crate::bills::domain::Channel;
use crate::calendar::{Month, month_range};
use crate::context::{Actor, Context};
use crate::filters;
use crate::monthly::handlers::counted;
use crate::monthly::{convert, store};

/// Months of the trend.
pub const TREND_MONTHS: i32 = 12;

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetBillDashboardRequest>,
) -> Result<pb::GetBillDashboardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetBillDashboardRequest {
        org_ids,
        channel,
        start_month,
        end_month,
    } = req.into_inner();
    let this_month = Month::of(Utc::now());
    let (from, to) = month_range(start_month.as_ref(), end_month.as_ref())?;
    let (from, to) = match (from, to) {
        (None, None) => (Month::new(this_month.year(), 1), Some(this_month)),
        range => range,
    };
    let mut query = counted(from, to);
    query.org_ids =
        filters::org_subtrees(&mut tx, filters::ids("orgIds", &org_ids, "组织编号无效")?).await?;
    query.channel = Channel::from_pb(channel).map(i16::from);
    let figures = store::figures(&mut tx, &actor, &query).await?;
    let kinds = store::kinds(&mut tx, &actor, &query).await?;
    let last = to.unwrap_or(this_month);
    let first = last.plus(1 - TREND_MONTHS);
    let mut trend_query = query.clone();
    trend_query.from_month = Some(first.code());
    trend_query.to_month = Some(last.code());
    let months = store::list(
        &mut tx,
        &actor,
        &store::MonthQuery {
            bills: trend_query,
            ..store::MonthQuery::default()
        },
        fleetdesk_kit::list::Paging { page: 1, size: 100 },
    )
    .await?
    .0;
    db::end_read(tx);
    let trend = (0..TREND_MONTHS)
        .map(|i| {
            let month = first.plus(i);
            let row = months.iter().find(|m| m.period == month.code());
            pb::MonthlyBillFigure {
                month: Some(month.to_pb()),
                payable_fen: row.map_or(0, |m| m.payable_fen),
                paid_fen: row.map_or(0, |m| m.paid_fen),
            }
        })
        .collect();
    let count = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
    Ok(pb::GetBillDashboardResponse {
        dashboard: Some(pb::BillDashboard {
            payable_fen: figures.payable_fen,
            paid_fen: figures.paid_fen,
            outstanding_fen: figures.outstanding_fen,
            overdue_fen: figures.overdue_fen,
            overdue_count: count(figures.overdue_count),
            due_soon_fen: figures.due_soon_fen,
            unpaid_count: count(figures.unpaid_count),
            pending_confirmation_count: count(figures.pending_confirmation_count),
            invoiceable_fen: figures.invoiceable_fen,
            by_kind: convert::by_kind(&kinds, |_| true)?,
            trend,
        }),
    })
}
