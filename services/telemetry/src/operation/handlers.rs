//! The daily and monthly operation-log RPCs: validate → store → response,
//! in one tenant transaction under the caller's reach.

use chrono::{Datelike, Months, NaiveDate};
use fleetdesk_assets::vehicles;
use fleetdesk_kit::list::{Paging, TimeRange, batch};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::rollup::slot_of;
use super::store::{self, LogQuery};
use super::{PERMISSION, convert, export};
use crate::context::{Actor, Context};
use crate::exports;

/// The daily log covers at most this many days, the monthly log this many months.
pub const MAX_DAYS: i64 = 92;
pub const MAX_MONTHS: u32 = 12;

fn org_ids(values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid("orgIds", "编号无效")))
        .collect()
}

fn month(field: &str, m: Option<&common::YearMonth>) -> Result<NaiveDate, ServiceError> {
    m.and_then(|m| NaiveDate::from_ymd_opt(m.year, u32::try_from(m.month).ok()?, 1))
        .ok_or_else(|| ServiceError::invalid(field, "请选择月份"))
}

/// The daily log's filter, checked, with its organisations' subtrees (the
/// list and its export read it the same way).
pub async fn daily_query(
    conn: &mut PgConnection,
    r: &pb::ListDailyOperationReportsRequest,
) -> Result<LogQuery, ServiceError> {
    let range = TimeRange::parse("reportDate", r.report_date.as_ref())?;
    let (Some(start), Some(end)) = (range.start, range.end) else {
        return Err(ServiceError::invalid("reportDate", "请选择日期范围"));
    };
    // Whole Beijing days: the end instant's day is included unless it is
    // that day's midnight.
    let (from, _) = slot_of(start);
    let (to, end_slot) = slot_of(end);
    let to = if end_slot == 0 && end.timestamp() % 60 == 0 && to > from {
        to.pred_opt().unwrap_or(to)
    } else {
        to
    };
    if (to - from).num_days() >= MAX_DAYS {
        return Err(ServiceError::invalid(
            "reportDate",
            format!("时间范围最长 {MAX_DAYS} 天"),
        ));
    }
    Ok(LogQuery {
        plates: batch("plateNumbers", &r.plate_numbers)?,
        vins: batch("vins", &r.vins)?,
        org_ids: vehicles::store::org_subtrees(conn, org_ids(&r.org_ids)?).await?,
        from,
        to,
        operating_only: r.operating_only,
    })
}

/// The monthly log's filter, checked, with its organisations' subtrees.
pub async fn monthly_query(
    conn: &mut PgConnection,
    r: &pb::ListMonthlyOperationReportsRequest,
) -> Result<LogQuery, ServiceError> {
    let from = month("startMonth", r.start_month.as_ref())?;
    let to = month("endMonth", r.end_month.as_ref())?;
    if to < from {
        return Err(ServiceError::invalid(
            "endMonth",
            "结束月份不能早于开始月份",
        ));
    }
    if from
        .checked_add_months(Months::new(MAX_MONTHS))
        .is_some_and(|limit| to >= limit)
    {
        return Err(ServiceError::invalid(
            "endMonth",
            format!("时间范围最长 {MAX_MONTHS} 个月"),
        ));
    }
    debug_assert!(from.day() == 1);
    Ok(LogQuery {
        plates: batch("plateNumbers", &r.plate_numbers)?,
        vins: batch("vins", &r.vins)?,
        org_ids: vehicles::store::org_subtrees(conn, org_ids(&r.org_ids)?).await?,
        from,
        to,
        operating_only: false,
    })
}

pub async fn daily(
    ctx: &Context,
    req: Request<pb::ListDailyOperationReportsRequest>,
) -> Result<pb::ListDailyOperationReportsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let paging = Paging::parse(r.page.as_ref())?;
    let query = daily_query(&mut tx, &r).await?;
    let (rows, totals) = store::days(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListDailyOperationReportsResponse {
        reports: rows
            .into_iter()
            .map(|row| convert::day(actor.enterprise_id, row))
            .collect(),
        page: Some(paging.info(totals.rows)),
        totals: Some(convert::totals(&totals)),
    })
}

pub async fn monthly(
    ctx: &Context,
    req: Request<pb::ListMonthlyOperationReportsRequest>,
) -> Result<pb::ListMonthlyOperationReportsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let paging = Paging::parse(r.page.as_ref())?;
    let query = monthly_query(&mut tx, &r).await?;
    let (rows, totals) = store::months(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListMonthlyOperationReportsResponse {
        reports: rows
            .into_iter()
            .map(|row| convert::month(actor.enterprise_id, row))
            .collect(),
        page: Some(paging.info(totals.rows)),
        totals: Some(convert::totals(&totals)),
    })
}

/// `ExportDailyOperationReports`: checks the list's filter and queues it
/// under the caller's reach; answers the job at once.
pub async fn export_daily(
    ctx: &Context,
    req: Request<pb::ExportDailyOperationReportsRequest>,
) -> Result<pb::ExportDailyOperationReportsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    daily_query(&mut tx, &filter).await?;
    let job = exports::start(&mut tx, &actor, export::daily_job(&filter)).await?;
    tx.commit().await?;
    Ok(pb::ExportDailyOperationReportsResponse { job: Some(job) })
}

/// `ExportMonthlyOperationReports`: as [`export_daily`] for the monthly log.
pub async fn export_monthly(
    ctx: &Context,
    req: Request<pb::ExportMonthlyOperationReportsRequest>,
) -> Result<pb::ExportMonthlyOperationReportsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    monthly_query(&mut tx, &filter).await?;
    let job = exports::start(&mut tx, &actor, export::monthly_job(&filter)).await?;
    tx.commit().await?;
    Ok(pb::ExportMonthlyOperationReportsResponse { job: Some(job) })
}
