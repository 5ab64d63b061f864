//! Export records follow the export jobs of every service (kit::export):
//! org consumes `fleetdesk.*.export.*` and applies each event once, in the
//! transaction that records its id. `requested` creates the record (or
//! resets it for a retry's new run), `progressed` moves its live progress,
//! `finished`, `failed` and `cancelled` end it; the requester gets a notice
//! when it finishes or fails. An event of an earlier run changes nothing.
//!
//! Why events and not an org RPC the domain calls: the job and the event
//! that announces it commit together in the domain's transaction (the
//! outbox), so a record never exists without its job or the other way
//! round, and a domain can start an export while org is down.

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use fleetdesk_kit::{convert, events, export, subjects};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::common::v1::export_job_event::Change;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// How long a finished export's file stays downloadable.
const KEEP_DAYS: i32 = 7;

fn at(ts: Option<&prost_types::Timestamp>) -> DateTime<Utc> {
    ts.and_then(convert::datetime).unwrap_or_else(Utc::now)
}

/// The job an event is about.
struct JobRef {
    id: Uuid,
    enterprise_id: Uuid,
    domain: String,
    run: i32,
    at: DateTime<Utc>,
}

/// Applies one export event in `tx` (the caller records its id). An event
/// that ends a run whose record is not there yet fails, so it is applied
/// again after the `requested` event that creates the record.
pub async fn apply(tx: &mut PgConnection, event: common::ExportJobEvent) -> anyhow::Result<()> {
    let job = JobRef {
        id: Uuid::parse_str(&event.job_id).context("job id")?,
        enterprise_id: Uuid::parse_str(&event.enterprise_id).context("enterprise id")?,
        domain: event.domain,
        run: event.run,
        at: at(event.at.as_ref()),
    };
    // Act for the event's tenant: the record and the notice are its rows.
    sqlx::query("select set_config('app.enterprise_id', $1, true)")
        .bind(job.enterprise_id.to_string())
        .execute(&mut *tx)
        .await?;
    let Some(change) = event.change else {
        tracing::warn!(job = %job.id, "Export event without a change; skipped.");
        return Ok(());
    };
    match change {
        Change::Requested(requested) => on_requested(tx, &job, requested).await,
        Change::Progressed(progress) => on_progressed(tx, &job, progress).await,
        Change::Finished(finished) => on_finished(tx, &job, finished).await,
        Change::Failed(failed) => on_failed(tx, &job, failed).await,
        Change::Cancelled(cancelled) => on_cancelled(tx, &job, cancelled).await,
    }
}

async fn on_requested(
    tx: &mut PgConnection,
    job: &JobRef,
    event: common::ExportRequested,
) -> anyhow::Result<()> {
    let requested_by = match event.requested_by.as_str() {
        "" => None,
        id => Some(Uuid::parse_str(id).context("requested_by")?),
    };
    let requested_by_name: String = match requested_by {
        Some(member) => sqlx::query_scalar("select name from member where id = $1")
            .bind(member)
            .fetch_optional(&mut *tx)
            .await?
            .unwrap_or_default(),
        None => String::new(),
    };
    let filters: serde_json::Value =
        serde_json::from_str(&event.filters_json).unwrap_or_else(|_| serde_json::json!({}));
    // A retry's new run resets the record; an older run's event is ignored.
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
    .bind(event.name.trim())
    .bind(event.module.trim())
    .bind(requested_by)
    .bind(requested_by_name)
    .bind(filters)
    .bind(job.at)
    .bind(&job.domain)
    .bind(job.run)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

async fn on_progressed(
    tx: &mut PgConnection,
    job: &JobRef,
    event: common::ExportProgressed,
) -> anyhow::Result<()> {
    // Progress of a record not created yet is simply dropped: more follows.
    sqlx::query(
        "update export_record set status = 2, rows_done = greatest(rows_done, $3), rows_total = $4 \
         where id = $1 and run = $2 and status in (1, 2)",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(event.rows_done)
    .bind(event.rows_total)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The record a terminal event ended, for its notice.
#[derive(sqlx::FromRow)]
struct Ended {
    name: String,
    requested_by: Option<Uuid>,
}

/// Whether the record of this run exists (ended or not); errors while
/// its `requested` event has not been applied.
async fn ensure_known(tx: &mut PgConnection, job: &JobRef) -> anyhow::Result<()> {
    let run: Option<i32> = sqlx::query_scalar("select run from export_record where id = $1")
        .bind(job.id)
        .fetch_optional(&mut *tx)
        .await?;
    match run {
        Some(run) if run >= job.run => Ok(()),
        _ => anyhow::bail!(
            "export record {} of run {} not created yet",
            job.id,
            job.run
        ),
    }
}

async fn on_finished(
    tx: &mut PgConnection,
    job: &JobRef,
    event: common::ExportFinished,
) -> anyhow::Result<()> {
    ensure_known(tx, job).await?;
    let ended: Option<Ended> = sqlx::query_as(
        "update export_record set status = 3, row_count = $3, rows_done = $3, rows_total = $3, \
         file_key = $4, failure_reason = '', finished_at = $5, \
         expires_at = $5 + make_interval(days => $6) \
         where id = $1 and run = $2 and status in (1, 2) returning name, requested_by",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(event.rows)
    .bind(&event.file_key)
    .bind(job.at)
    .bind(KEEP_DAYS)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(ended) = ended {
        notify(
            tx,
            job.enterprise_id,
            &ended,
            "导出完成",
            &format!(
                "您导出的【{}】已完成，共{}条数据。导出结果请到右上方个人信息下【导出记录】中查看下载结果，文件保留{KEEP_DAYS}天。",
                ended.name, event.rows
            ),
        )
        .await?;
    }
    Ok(())
}

async fn on_failed(
    tx: &mut PgConnection,
    job: &JobRef,
    event: common::ExportFailed,
) -> anyhow::Result<()> {
    ensure_known(tx, job).await?;
    let reason = if event.reason.trim().is_empty() {
        export::FAILED.to_owned()
    } else {
        event.reason.trim().to_owned()
    };
    let ended: Option<Ended> = sqlx::query_as(
        "update export_record set status = 4, rows_done = $3, failure_reason = $4, finished_at = $5 \
         where id = $1 and run = $2 and status in (1, 2) returning name, requested_by",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(event.rows_done)
    .bind(&reason)
    .bind(job.at)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(ended) = ended {
        notify(
            tx,
            job.enterprise_id,
            &ended,
            "导出失败",
            &format!(
                "您导出的【{}】失败：{reason}。可在【导出记录】中重试。",
                ended.name
            ),
        )
        .await?;
    }
    Ok(())
}

async fn on_cancelled(
    tx: &mut PgConnection,
    job: &JobRef,
    event: common::ExportCancelled,
) -> anyhow::Result<()> {
    ensure_known(tx, job).await?;
    sqlx::query(
        "update export_record set status = 6, rows_done = $3, finished_at = $4 \
         where id = $1 and run = $2 and status in (1, 2)",
    )
    .bind(job.id)
    .bind(job.run)
    .bind(event.rows_done)
    .bind(job.at)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A notice to the member who asked for the export (none for a service).
async fn notify(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    ended: &Ended,
    title: &str,
    content: &str,
) -> sqlx::Result<()> {
    let Some(recipient) = ended.requested_by else {
        return Ok(());
    };
    sqlx::query(
        "insert into notice (id, enterprise_id, recipient_id, category, title, content) \
         values ($1, $2, $3, 'export', $4, $5)",
    )
    .bind(Uuid::new_v4())
    .bind(enterprise_id)
    .bind(recipient)
    .bind(title)
    .bind(content)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Org's handler of export job events (see [`consumer`]).
#[derive(Debug, Clone, Copy)]
pub struct ExportRecords;

impl events::Handler for ExportRecords {
    type Event = common::ExportJobEvent;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: common::ExportJobEvent,
    ) -> anyhow::Result<()> {
        apply(tx, event).await
    }
}

/// Org's durable consumer of every service's export events. It is created
/// (`Consumer::ensure`) before org serves: a new consumer starts with the
/// events published from then on.
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<ExportRecords>> {
    events::Consumer::new(
        pool,
        nats,
        "export-records",
        subjects::EXPORT_ALL,
        ExportRecords,
    )
    .await
}
