//! Queries of export records: the member's list and detail within their
//! reach, a requested record, and the changes the job events make. Each
//! runs on the caller's (or the event's) tenant transaction. The job
//! events' statements write the stored codes of [`ExportStatus`] (1
//! pending, 2 running, 3 succeeded, 4 failed, 6 cancelled) as literals.

use chrono::{DateTime, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::retention::Pruning;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{ExportStatus, KEEP_DAYS};
use crate::scope::domain::Reach;

/// Records leave the downloads list [`Periods::export_record`] after they
/// were requested (their files went long before: kit prunes those with
/// the jobs).
///
/// [`Periods::export_record`]: fleetdesk_kit::retention::Periods
pub const RECORD_RETENTION: Pruning = Pruning {
    table: "export_record",
    statement: "delete from export_record where id in \
                (select id from export_record where created_at < $1 limit $2)",
    period: |p| p.export_record,
};

#[derive(Debug, FromRow)]
pub struct ExportRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub name: String,
    pub module: String,
    pub status: i16,
    pub requested_by: Option<Uuid>,
    pub requested_by_name: String,
    pub row_count: i64,
    pub file_key: String,
    pub failure_reason: String,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub rows_done: i64,
    pub rows_total: i64,
    pub domain: String,
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

/// What a list of records is narrowed to.
pub struct RecordFilter<'a> {
    pub module: &'a str,
    pub status: Option<ExportStatus>,
}

/// One page of records within the reach, newest first, and the total.
pub async fn page(
    conn: &mut PgConnection,
    tenant: Uuid,
    reach: &ResolvedReach,
    filter: &RecordFilter<'_>,
    (page, size): (i64, i64),
) -> sqlx::Result<(Vec<ExportRow>, i64)> {
    let RecordFilter { module, status } = filter;
    let status = status.map(i16::from);
    let condition = format!(
        "enterprise_id = $1 and ($2 = '' or module = $2) and {}",
        in_reach(4)
    );
    let outer = "($3::smallint is null or status = $3)";
    let rows: Vec<ExportRow> = sqlx::query_as(&format!(
        "select * from ({SELECT} where {condition}) r where {outer} \
         order by created_at desc, id limit $7 offset $8"
    ))
    .bind(tenant)
    .bind(*module)
    .bind(status)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *conn)
    .await?;
    let total: i64 = sqlx::query_scalar(&format!(
        "select count(*) from ({SELECT} where {condition}) r where {outer}"
    ))
    .bind(tenant)
    .bind(*module)
    .bind(status)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .fetch_one(&mut *conn)
    .await?;
    Ok((rows, total))
}

/// One record within the reach.
pub async fn get(
    conn: &mut PgConnection,
    tenant: Uuid,
    reach: &ResolvedReach,
    id: Uuid,
) -> sqlx::Result<Option<ExportRow>> {
    sqlx::query_as(&format!(
        "{SELECT} where enterprise_id = $1 and id = $2 and {}",
        in_reach(3)
    ))
    .bind(tenant)
    .bind(id)
    .bind(reach.all)
    .bind(reach.org_ids.clone())
    .bind(reach.own)
    .fetch_optional(conn)
    .await
}

/// A requested export as the member asked for it.
pub struct NewRecord<'a> {
    pub tenant: Uuid,
    pub name: &'a str,
    pub module: &'a str,
    pub requested_by: Option<Uuid>,
    pub requested_by_name: &'a str,
    pub filters: &'a serde_json::Value,
}

/// Records a requested export as PENDING.
pub async fn insert(conn: &mut PgConnection, new: NewRecord<'_>) -> sqlx::Result<ExportRow> {
    let NewRecord {
        tenant,
        name,
        module,
        requested_by,
        requested_by_name,
        filters,
    } = new;
    sqlx::query_as(
        "insert into export_record (id, enterprise_id, name, module, requested_by, requested_by_name, filters) \
         values ($1, $2, $3, $4, $5, $6, $7) \
         returning id, enterprise_id, name, module, status, requested_by, requested_by_name, row_count, \
         file_key, failure_reason, created_at, finished_at, expires_at, rows_done, rows_total, domain",
    )
    .bind(Uuid::new_v4())
    .bind(tenant)
    .bind(name)
    .bind(module)
    .bind(requested_by)
    .bind(requested_by_name)
    .bind(filters)
    .fetch_one(conn)
    .await
}

/// The job an event is about.
#[derive(Debug, Clone)]
pub struct JobRef {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub domain: String,
    pub run: i32,
    pub at: DateTime<Utc>,
}

/// Acts for the event's tenant: the record and the notice are its rows.
pub async fn act_for(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("select set_config('app.enterprise_id', $1, true)")
        .bind(enterprise_id.to_string())
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn member_name(conn: &mut PgConnection, member: Uuid) -> sqlx::Result<String> {
    let name: Option<String> = sqlx::query_scalar("select name from member where id = $1")
        .bind(member)
        .fetch_optional(conn)
        .await?;
    Ok(name.unwrap_or_default())
}

/// What a `requested` event says.
pub struct Requested<'a> {
    pub name: &'a str,
    pub module: &'a str,
    pub requested_by: Option<Uuid>,
    pub requested_by_name: &'a str,
    pub filters: serde_json::Value,
}

/// Creates the record of a run, or resets it for a retry's new run; an
/// older run's event is ignored.
pub async fn requested(
    conn: &mut PgConnection,
    job: &JobRef,
    event: Requested<'_>,
) -> sqlx::Result<()> {
    let Requested {
        name,
        module,
        requested_by,
        requested_by_name,
        filters,
    } = event;
    sqlx::query(
        "insert into export_record (id, enterprise_id, name, module, status, requested_by, \
         requested_by_name, filters, created_at, domain, run) \
         values ($1, $2, $3, $4, 1, $5, $6, $7, $8, $9, $10) \
         on conflict (id) do update set status = 1, run = excluded.run, rows_done = 0, \
         rows_total = 0, row_count = 0, file_key = '', failure_reason = '', finished_at = null, \
         expires_at = null where export_record.run < excluded.run",
    )
    .bind(job.id)
    .bind(job.enterprise_id)
    .bind(name)
    .bind(module)
    .bind(requested_by)
    .bind(requested_by_name)
    .bind(filters)
    .bind(job.at)
    .bind(&job.domain)
    .bind(job.run)
    .execute(conn)
    .await?;
    Ok(())
}

/// Moves a live record's progress (and marks it running). Progress of a
/// record not created yet is simply dropped: more follows.
pub async fn progressed(
    conn: &mut PgConnection,
    job: &JobRef,
    rows_done: i64,
    rows_total: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "update export_record set status = 2, rows_done = greatest(rows_done, $3), rows_total = $4 \
         where id = $1 and run = $2 and status in (1, 2)",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(rows_done)
    .bind(rows_total)
    .execute(conn)
    .await?;
    Ok(())
}

/// The run of the job's record, if it exists.
pub async fn run_of(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<i32>> {
    sqlx::query_scalar("select run from export_record where id = $1")
        .bind(id)
        .fetch_optional(conn)
        .await
}

/// The record a terminal event ended, for its notice.
#[derive(Debug, FromRow)]
pub struct Ended {
    pub name: String,
    pub requested_by: Option<Uuid>,
}

/// Ends a live record as succeeded, with its file (kept [`KEEP_DAYS`]).
pub async fn finished(
    conn: &mut PgConnection,
    job: &JobRef,
    rows: i64,
    file_key: &str,
) -> sqlx::Result<Option<Ended>> {
    sqlx::query_as(
        "update export_record set status = 3, row_count = $3, rows_done = $3, rows_total = $3, \
         file_key = $4, failure_reason = '', finished_at = $5, \
         expires_at = $5 + make_interval(days => $6) \
         where id = $1 and run = $2 and status in (1, 2) returning name, requested_by",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(rows)
    .bind(file_key)
    .bind(job.at)
    .bind(KEEP_DAYS)
    .fetch_optional(conn)
    .await
}

/// Ends a live record as failed, with its reason.
pub async fn failed(
    conn: &mut PgConnection,
    job: &JobRef,
    rows_done: i64,
    reason: &str,
) -> sqlx::Result<Option<Ended>> {
    sqlx::query_as(
        "update export_record set status = 4, rows_done = $3, failure_reason = $4, finished_at = $5 \
         where id = $1 and run = $2 and status in (1, 2) returning name, requested_by",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(rows_done)
    .bind(reason)
    .bind(job.at)
    .fetch_optional(conn)
    .await
}

/// Ends a live record as cancelled.
pub async fn cancelled(conn: &mut PgConnection, job: &JobRef, rows_done: i64) -> sqlx::Result<()> {
    sqlx::query(
        "update export_record set status = 6, rows_done = $3, finished_at = $4 \
         where id = $1 and run = $2 and status in (1, 2)",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(rows_done)
    .bind(job.at)
    .execute(conn)
    .await?;
    Ok(())
}

/// A notice to a member.
pub async fn notify(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    recipient: Uuid,
    title: &str,
    content: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into notice (id, enterprise_id, recipient_id, category, title, content) \
         values ($1, $2, $3, 'export', $4, $5)",
    )
    .bind(Uuid::new_v4())
    .bind(enterprise_id)
    .bind(recipient)
    .bind(title)
    .bind(content)
    .execute(conn)
    .await?;
    Ok(())
}
