//! Export records: what a member asked to export, its status and live
//! progress and, once the file is there, where to download it. The records
//! follow the jobs of the exporting services through their events
//! ([`crate::export_jobs`]). A record is seen within the caller's data scope
//! over the requesting member: their own under a self scope, those of
//! members in the reached organisations, or all.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgPool};
use tonic::{Request, Response};
use uuid::Uuid;

use crate::actor;
use crate::scope::{self, Reach};

/// Longest record name and module.
const MAX_NAME: usize = 100;

#[derive(Debug, FromRow)]
struct ExportRow {
    id: Uuid,
    enterprise_id: Uuid,
    name: String,
    module: String,
    status: i16,
    requested_by: Option<Uuid>,
    requested_by_name: String,
    row_count: i64,
    file_key: String,
    failure_reason: String,
    created_at: DateTime<Utc>,
    finished_at: Option<DateTime<Utc>>,
    expires_at: Option<DateTime<Utc>>,
    rows_done: i64,
    rows_total: i64,
    domain: String,
}

const SELECT: &str = "select id, enterprise_id, name, module, \
     case when status = 3 and expires_at is not null and expires_at <= now() then 5::smallint else status end as status, \
     requested_by, requested_by_name, row_count, file_key, failure_reason, created_at, finished_at, expires_at, \
     rows_done, rows_total, domain \
     from export_record";

/// The data-scope condition over export records, binding the reach from
/// `$first` (see [`Reach::condition`]): the requesting member's organisation,
/// or the caller's own records.
fn in_reach(first: usize) -> String {
    Reach::condition(
        "(select m.org_id from member m where m.id = export_record.requested_by)",
        "export_record.requested_by",
        first,
    )
}

fn record_pb(row: ExportRow) -> pb::ExportRecord {
    pb::ExportRecord {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        name: row.name,
        module: row.module,
        status: i32::from(row.status),
        requested_by: row
            .requested_by
            .map(|id| id.to_string())
            .unwrap_or_default(),
        row_count: row.row_count,
        file_key: row.file_key,
        failure_reason: row.failure_reason,
        request_time: Some(timestamp(row.created_at)),
        finish_time: row.finished_at.map(timestamp),
        requested_by_name: row.requested_by_name,
        expire_time: row.expires_at.map(timestamp),
        rows_done: row.rows_done,
        rows_total: row.rows_total,
        domain: row.domain,
    }
}

/// Where a finished record's file is fetched: an edge path that checks the
/// session and the tenant again before it streams the file. Empty until the
/// file exists, and after it expired.
pub fn download_url(record: &pb::ExportRecord) -> String {
    if record.status == pb::ExportStatus::Succeeded as i32 && !record.file_key.is_empty() {
        format!("/api/v1/export-records/{}/file", record.id)
    } else {
        String::new()
    }
}

pub async fn list(
    pool: &PgPool,
    request: Request<pb::ListExportRecordsRequest>,
) -> Result<Response<pb::ListExportRecordsResponse>, ServiceError> {
    let actor = actor::of(&request)?;
    let req = request.into_inner();
    let (page, size) = convert::page(req.page.as_ref());
    let status = match req.status {
        0 => None,
        s @ 1..=6 => i16::try_from(s).ok(),
        _ => return Err(ServiceError::invalid("status", "导出状态无效")),
    };
    let filter = format!(
        "enterprise_id = $1 and ($2 = '' or module = $2) and {}",
        in_reach(4)
    );
    let outer = "($3::smallint is null or status = $3)";
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let reach = scope::of_caller(&mut tx, actor.member_id).await?;
    let rows: Vec<ExportRow> = sqlx::query_as(&format!(
        "select * from ({SELECT} where {filter}) r where {outer} \
         order by created_at desc, id limit $7 offset $8"
    ))
    .bind(actor.enterprise_id)
    .bind(req.module.trim())
    .bind(status)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *tx)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!(
        "select count(*) from ({SELECT} where {filter}) r where {outer}"
    ))
    .bind(actor.enterprise_id)
    .bind(req.module.trim())
    .bind(status)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::ListExportRecordsResponse {
        records: rows.into_iter().map(record_pb).collect(),
        page: Some(convert::page_info(page, size, total)),
    }))
}

pub async fn get(
    pool: &PgPool,
    request: Request<pb::GetExportRecordRequest>,
) -> Result<Response<pb::GetExportRecordResponse>, ServiceError> {
    let actor = actor::of(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let reach = scope::of_caller(&mut tx, actor.member_id).await?;
    let row: ExportRow = sqlx::query_as(&format!(
        "{SELECT} where enterprise_id = $1 and id = $2 and {}",
        in_reach(3)
    ))
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(reach.all)
    .bind(reach.org_list())
    .bind(reach.own)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    let record = record_pb(row);
    Ok(Response::new(pb::GetExportRecordResponse {
        download_url: download_url(&record),
        record: Some(record),
    }))
}

/// Records a requested export as PENDING, for the job to pick up.
pub async fn create(
    pool: &PgPool,
    request: Request<pb::CreateExportRecordRequest>,
) -> Result<Response<pb::CreateExportRecordResponse>, ServiceError> {
    let actor = actor::of(&request)?;
    let req = request.into_inner();
    let (name, module) = (req.name.trim(), req.module.trim());
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入导出名称"));
    }
    if module.is_empty() {
        return Err(ServiceError::invalid("module", "请输入导出模块"));
    }
    actor::limit("name", name, MAX_NAME)?;
    actor::limit("module", module, MAX_NAME)?;
    let filters: serde_json::Value = if req.filters_json.trim().is_empty() {
        serde_json::json!({})
    } else {
        serde_json::from_str(&req.filters_json)
            .map_err(|_| ServiceError::invalid("filtersJson", "筛选条件不是有效的 JSON"))?
    };
    let id = Uuid::new_v4();
    let mut tx = db::begin_tenant(pool, actor.enterprise_id).await?;
    let requested_by_name = actor::name(&mut tx, &actor).await?;
    let row: ExportRow = sqlx::query_as(
        "insert into export_record (id, enterprise_id, name, module, requested_by, requested_by_name, filters) \
         values ($1, $2, $3, $4, $5, $6, $7) \
         returning id, enterprise_id, name, module, status, requested_by, requested_by_name, row_count, \
         file_key, failure_reason, created_at, finished_at, expires_at, rows_done, rows_total, domain",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(name)
    .bind(module)
    .bind(actor.member_id)
    .bind(&requested_by_name)
    .bind(&filters)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Response::new(pb::CreateExportRecordResponse {
        record: Some(record_pb(row)),
    }))
}
