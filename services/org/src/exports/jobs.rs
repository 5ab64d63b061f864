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
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::KEEP_DAYS;
use super::store::{self, Ended, JobRef, Requested};

fn at(ts: Option<&prost_types::Timestamp>) -> DateTime<Utc> {
    ts.and_then(convert::datetime).unwrap_or_else(Utc::now)
}

/// Applies one export event in `tx` (the caller records its id). An event
/// that ends a run whose record is not there yet fails, so it is applied
/// again after the `requested` event that creates the record.
pub async fn apply(tx: &mut PgConnection, event: common::ExportJobEvent) -> anyhow::Result<()> {
    let common::ExportJobEvent {
        job_id,
        enterprise_id,
        domain,
        run,
        at: event_at,
        change,
    } = event;
    let job = JobRef {
        id: Uuid::parse_str(&job_id).context("job id")?,
        enterprise_id: Uuid::parse_str(&enterprise_id).context("enterprise id")?,
        domain,
        run,
        at: at(event_at.as_ref()),
    };
    store::act_for(tx, job.enterprise_id).await?;
    let Some(change) = change else {
        tracing::warn!(job = %job.id, "Export event without a change; skipped.");
        return Ok(());
    };
    match change {
        Change::Requested(requested) => on_requested(tx, &job, requested).await,
        Change::Progressed(progress) => {
            store::progressed(tx, &job, progress.rows_done, progress.rows_total).await?;
            Ok(())
        }
        Change::Finished(finished) => on_finished(tx, &job, finished).await,
        Change::Failed(failed) => on_failed(tx, &job, failed).await,
        Change::Cancelled(cancelled) => {
            ensure_known(tx, &job).await?;
            store::cancelled(tx, &job, cancelled.rows_done).await?;
            Ok(())
        }
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
    let requested_by_name = match requested_by {
        Some(member) => store::member_name(tx, member).await?,
        None => String::new(),
    };
    let filters: serde_json::Value =
        serde_json::from_str(&event.filters_json).unwrap_or_else(|_| serde_json::json!({}));
    store::requested(
        tx,
        job,
        Requested {
            name: event.name.trim(),
            module: event.module.trim(),
            requested_by,
            requested_by_name: &requested_by_name,
            filters,
        },
    )
    .await?;
    Ok(())
}

/// Whether the record of this run exists (ended or not); errors while
/// its `requested` event has not been applied.
async fn ensure_known(tx: &mut PgConnection, job: &JobRef) -> anyhow::Result<()> {
    match store::run_of(tx, job.id).await? {
        Some(run) if run >= job.run => Ok(()),
        Some(_) | None => anyhow::bail!(
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
    let ended = store::finished(tx, job, event.rows, &event.file_key).await?;
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
    let ended = store::failed(tx, job, event.rows_done, &reason).await?;
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

/// A notice to the member who asked for the export (none for a service).
async fn notify(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    ended: &Ended,
    title: &str,
    content: &str,
) -> sqlx::Result<()> {
    match ended.requested_by {
        Some(recipient) => store::notify(tx, enterprise_id, recipient, title, content).await,
        None => Ok(()),
    }
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
