//! Export of the approval centre's list (`/approval/export`) through
//! kit::export: the request takes the list's filters and the caller's
//! reach, both kept with the job; the worker reads the approvals in the
//! list's order (`applied_at desc, id`) by keyset pages.

use chrono::{DateTime, Utc};
use fleetdesk_kit::export::{Cell, ExportKind, JobScope, Page};
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::common::v1 as common;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Kind, State};
use crate::context::Actor;
use crate::exports::kinds::{self, Named, StoredReach, shanghai};
use crate::scope::domain::Reach;

/// The kind's name in `export_job.kind`.
pub const KIND: &str = "approvals";

/// The approvals list's filter as the job keeps it (stored codes).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ApprovalsFilter {
    pub status: Option<i16>,
    pub kind: Option<i16>,
}

/// Queues the export of `filter` under the actor's (resolved) reach.
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    filter: ApprovalsFilter,
    filters_json: serde_json::Value,
) -> Result<common::ExportJob, ServiceError> {
    let named = Named {
        kind: KIND,
        name: "审批列表",
        module: "approve",
    };
    kinds::start(tx, actor, named, &filter, filters_json).await
}

/// The approvals list as an export kind.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalsExport;

#[derive(Debug, FromRow)]
struct Row {
    id: Uuid,
    kind: i16,
    title: String,
    business_id: String,
    plate_number: String,
    applicant_name: String,
    applicant_phone: String,
    status: i16,
    applied_at: DateTime<Utc>,
    decided_at: Option<DateTime<Utc>>,
}

/// The list's conditions (approvals::store::page's), binding $1..$6.
fn conditions() -> String {
    format!(
        "enterprise_id = $1 and ($2::smallint is null or status = $2) \
         and ($3::smallint is null or kind = $3) and {}",
        Reach::condition("org_id", "applicant_id", 4)
    )
}

fn bind<'q, O>(
    query: sqlx::query::QueryAs<'q, sqlx_postgres::Postgres, O, sqlx_postgres::PgArguments>,
    job: &JobScope,
    filter: &ApprovalsFilter,
    reach: &StoredReach,
) -> sqlx::query::QueryAs<'q, sqlx_postgres::Postgres, O, sqlx_postgres::PgArguments> {
    query
        .bind(job.enterprise_id)
        .bind(filter.status)
        .bind(filter.kind)
        .bind(reach.all)
        .bind(reach.orgs.clone())
        .bind(reach.own)
}

fn kind_label(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::VehicleAllotment) => "车辆调拨",
        Some(Kind::ChargeAllocation) => "充电额度分配",
        Some(Kind::Refund) => "退款",
        Some(Kind::Invoice) => "开票",
        Some(Kind::RepairPrice) => "维修报价",
        None => "其他",
    }
}

fn state_label(state: Option<State>) -> &'static str {
    match state {
        Some(State::Pending) => "待审批",
        Some(State::Approved) => "已通过",
        Some(State::Rejected) => "已驳回",
        Some(State::Withdrawn) => "已撤回",
        None => "",
    }
}

fn cells(row: Row) -> Vec<Cell> {
    let Row {
        id: _,
        kind,
        title,
        business_id,
        plate_number,
        applicant_name,
        applicant_phone,
        status,
        applied_at,
        decided_at,
    } = row;
    vec![
        Cell::from(title),
        Cell::from(kind_label(Kind::try_from(kind).ok())),
        Cell::from(business_id),
        Cell::from(applicant_name),
        Cell::from(mask::centre(&applicant_phone)),
        Cell::from(plate_number),
        Cell::from(state_label(State::try_from(status).ok())),
        Cell::from(shanghai(applied_at)),
        Cell::from(decided_at.map(shanghai).unwrap_or_default()),
    ]
}

impl ExportKind for ApprovalsExport {
    fn header(&self) -> Vec<String> {
        [
            "审批事项",
            "审批类型",
            "业务单号",
            "申请人",
            "申请人手机号",
            "车牌号",
            "审批状态",
            "申请时间",
            "审批时间",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect()
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let (filter, reach): (ApprovalsFilter, StoredReach) = kinds::decode(job)?;
            let sql = format!("select count(*) from approval where {}", conditions());
            let (count,): (i64,) = bind(sqlx::query_as(&sql), job, &filter, &reach)
                .fetch_one(conn)
                .await?;
            Ok(count)
        })
    }

    fn page<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
        after: Option<&'a str>,
        limit: i64,
    ) -> BoxFuture<'a, Result<Page, ServiceError>> {
        Box::pin(async move {
            let (filter, reach): (ApprovalsFilter, StoredReach) = kinds::decode(job)?;
            let (after_at, after_id) = kinds::parse_cursor(after)?;
            // Newest first, ties by id ascending, as the list pages them.
            let sql = format!(
                "select id, kind, title, business_id, plate_number, applicant_name, applicant_phone, status, \
                   applied_at, decided_at \
                 from approval \
                 where {} and ($7::timestamptz is null or applied_at < $7 \
                   or (applied_at = $7 and id > $8)) \
                 order by applied_at desc, id limit $9",
                conditions()
            );
            let rows: Vec<Row> = bind(sqlx::query_as(&sql), job, &filter, &reach)
                .bind(after_at)
                .bind(after_id)
                .bind(limit)
                .fetch_all(conn)
                .await?;
            let next = rows.last().map(|r| kinds::cursor(r.applied_at, r.id));
            Ok(Page {
                rows: rows.into_iter().map(cells).collect(),
                next,
            })
        })
    }
}
