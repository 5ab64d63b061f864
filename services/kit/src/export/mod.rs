//! Export jobs (docs/ARCHITECTURE.md §3): `POST .../export` makes the owning service
//! queue a job ([`start`]) and announce it, so org shows the export record at
//! once; a worker inside the same service ([`ExportWorker`]) claims queued
//! jobs with SKIP LOCKED, streams the rows by keyset pages (never OFFSET)
//! into an xlsx file in constant memory, starts a new sheet at Excel's row
//! limit, stores the file through [`crate::files`] and reports progress,
//! success, failure and cancellation as events that org applies to the
//! record. Cancel and retry are the service's [`ExportJobApi`].
//!
//! A domain provides one [`ExportKind`] per exportable list: its header row,
//! a count and a keyset page fetch that applies the job's filter and the
//! requester's reach (both stored with the job, since the worker runs long
//! after the request). A list usually implements
//! [`ListExport`](scope::ListExport) instead, which is an
//! `ExportKind` with the paging written once.
//!
//! A job whose worker died (its lease ran out) is claimed again and runs
//! from the start; after [`WorkerOptions::max_attempts`] claims it fails.

pub mod scope;
mod xlsx;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use fleetdesk_proto::common::v1 as pb;
use futures::future::BoxFuture;
use sqlx::FromRow;
use sqlx_postgres::{PgConnection, PgPool};
use tonic::{Request, Response, Status};
use uuid::Uuid;

use crate::convert::timestamp;
use crate::error::{ErrorCode, ServiceError};
use crate::files::{self, FileStore};
use crate::shutdown::Shutdown;
use crate::{db, events, grpc, subjects};

/// Data rows per worksheet: Excel's 1,048,576 rows less the header.
pub const SHEET_ROWS: u32 = 1_048_575;

/// Postgres channel that wakes workers when a job is queued.
const WAKE_CHANNEL: &str = crate::wakeup::EXPORT_JOB;

/// What a requester is told when a job broke off.
pub const FAILED: &str = "导出失败";
/// What a requester is told when a job's worker died too often.
pub const INTERRUPTED: &str = "导出中断次数过多，请重试";

// --- Subjects -------------------------------------------------------------

/// What happened to a job; the last segment of its subject
/// ([`crate::subjects::export`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportVerb {
    Requested,
    Progressed,
    Finished,
    Failed,
    Cancelled,
}

impl ExportVerb {
    pub fn as_str(self) -> &'static str {
        match self {
            ExportVerb::Requested => "requested",
            ExportVerb::Progressed => "progressed",
            ExportVerb::Finished => "finished",
            ExportVerb::Failed => "failed",
            ExportVerb::Cancelled => "cancelled",
        }
    }
}

// --- Jobs -----------------------------------------------------------------

/// How far a job is (stored as smallint; `ExportJobStatus` on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    Queued,
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

impl JobStatus {
    pub fn code(self) -> i16 {
        match self {
            JobStatus::Queued => 1,
            JobStatus::Running => 2,
            JobStatus::Succeeded => 3,
            JobStatus::Failed => 4,
            JobStatus::Cancelled => 5,
        }
    }

    pub fn to_pb(self) -> pb::ExportJobStatus {
        match self {
            JobStatus::Queued => pb::ExportJobStatus::Queued,
            JobStatus::Running => pb::ExportJobStatus::Running,
            JobStatus::Succeeded => pb::ExportJobStatus::Succeeded,
            JobStatus::Failed => pb::ExportJobStatus::Failed,
            JobStatus::Cancelled => pb::ExportJobStatus::Cancelled,
        }
    }
}

impl TryFrom<i16> for JobStatus {
    type Error = ServiceError;

    fn try_from(code: i16) -> Result<Self, Self::Error> {
        match code {
            1 => Ok(JobStatus::Queued),
            2 => Ok(JobStatus::Running),
            3 => Ok(JobStatus::Succeeded),
            4 => Ok(JobStatus::Failed),
            5 => Ok(JobStatus::Cancelled),
            other => Err(ServiceError::new(
                ErrorCode::Internal,
                format!("unknown export job status {other}"),
            )),
        }
    }
}

/// A job row.
#[derive(Debug, Clone, FromRow)]
struct JobRow {
    id: Uuid,
    enterprise_id: Uuid,
    kind: String,
    name: String,
    module: String,
    requested_by: Option<Uuid>,
    filter: Vec<u8>,
    filters_json: String,
    reach: serde_json::Value,
    status: i16,
    run: i32,
    attempts: i32,
    cancel_requested: bool,
    rows_done: i64,
    rows_total: i64,
    file_key: String,
    created_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, enterprise_id, kind, name, module, requested_by, filter, filters_json, \
     reach, status, run, attempts, cancel_requested, rows_done, rows_total, file_key, created_at";

impl JobRow {
    /// An event about this run of the job.
    fn event(&self, domain: &str, change: Change) -> pb::ExportJobEvent {
        pb::ExportJobEvent {
            job_id: self.id.to_string(),
            enterprise_id: self.enterprise_id.to_string(),
            domain: domain.to_owned(),
            run: self.run,
            at: Some(timestamp(Utc::now())),
            change: Some(change),
        }
    }

    fn to_pb(&self) -> Result<pb::ExportJob, ServiceError> {
        Ok(pb::ExportJob {
            id: self.id.to_string(),
            status: JobStatus::try_from(self.status)?.to_pb() as i32,
            run: self.run,
            rows_done: self.rows_done,
            rows_total: self.rows_total,
            name: self.name.clone(),
            module: self.module.clone(),
            request_time: Some(timestamp(self.created_at)),
        })
    }

    fn scope(&self) -> JobScope {
        JobScope {
            id: self.id,
            enterprise_id: self.enterprise_id,
            requested_by: self.requested_by,
            reach: self.reach.clone(),
            filter: self.filter.clone(),
        }
    }
}

use pb::export_job_event::Change;

/// The verb of a change: the last segment of its subject.
pub fn verb_of(change: &Change) -> ExportVerb {
    match change {
        Change::Requested(_) => ExportVerb::Requested,
        Change::Progressed(_) => ExportVerb::Progressed,
        Change::Finished(_) => ExportVerb::Finished,
        Change::Failed(_) => ExportVerb::Failed,
        Change::Cancelled(_) => ExportVerb::Cancelled,
    }
}

/// Writes an event about `job` to the outbox in the caller's transaction.
async fn announce(
    tx: &mut PgConnection,
    domain: &str,
    job: &JobRow,
    change: Change,
) -> Result<Uuid, sqlx::Error> {
    let verb = verb_of(&change);
    events::enqueue(
        tx,
        &subjects::export(domain, verb.as_str()),
        &job.event(domain, change),
    )
    .await
}

async fn announce_requested(
    tx: &mut PgConnection,
    domain: &str,
    job: &JobRow,
) -> Result<(), sqlx::Error> {
    let change = Change::Requested(pb::ExportRequested {
        name: job.name.clone(),
        module: job.module.clone(),
        requested_by: job
            .requested_by
            .map(|id| id.to_string())
            .unwrap_or_default(),
        filters_json: job.filters_json.clone(),
    });
    announce(tx, domain, job, change).await?;
    sqlx::query("select pg_notify($1, '')")
        .bind(WAKE_CHANNEL)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// What a domain asks to export.
#[derive(Debug, Clone)]
pub struct NewExport {
    /// The [`ExportKind`] registered with the worker, e.g. "vehicles".
    pub kind: &'static str,
    /// The record's name, e.g. 车辆档案; also the file's name.
    pub name: String,
    /// The page it came from, e.g. carFiles.
    pub module: String,
    /// The list filter as the domain encodes it (its protobuf message).
    pub filter: Vec<u8>,
    /// The same filter as JSON, shown with the record.
    pub filters_json: String,
    /// The requester's reach, applied by the kind's fetch.
    pub reach: serde_json::Value,
}

/// Queues a job for `requester` of `enterprise_id` in the caller's
/// transaction and announces it (org creates the export record from that
/// event). Answers the job as the requester's export record starts out.
pub async fn start(
    tx: &mut PgConnection,
    domain: &str,
    enterprise_id: Uuid,
    requester: Option<Uuid>,
    new: NewExport,
) -> Result<pb::ExportJob, ServiceError> {
    let name = new.name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ServiceError::invalid("name", "导出名称无效"));
    }
    let job: JobRow = sqlx::query_as(&format!(
        "insert into export_job (id, enterprise_id, kind, name, module, requested_by, filter, \
         filters_json, reach) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning {COLUMNS}"
    ))
    .bind(Uuid::new_v4())
    .bind(enterprise_id)
    .bind(new.kind)
    .bind(name)
    .bind(new.module.trim())
    .bind(requester)
    .bind(&new.filter)
    .bind(&new.filters_json)
    .bind(&new.reach)
    .fetch_one(&mut *tx)
    .await?;
    announce_requested(tx, domain, &job).await?;
    job.to_pb()
}

/// The job `id` of the tenant, locked for an update; 4004 when there is none.
/// A 4009 for a job locked in `tx`. Rolls back first: a dropped transaction's
/// rollback waits for its pooled connection's next use, and until then the
/// row lock hides the job from workers claiming with `skip locked`.
async fn refuse<T>(
    tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    message: &str,
) -> Result<T, ServiceError> {
    tx.rollback().await?;
    Err(ServiceError::new(ErrorCode::Conflict, message))
}

async fn locked_job(tx: &mut PgConnection, id: Uuid) -> Result<JobRow, ServiceError> {
    sqlx::query_as(&format!(
        "select {COLUMNS} from export_job where id = $1 for update"
    ))
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(ServiceError::not_found)
}

async fn announce_cancelled(
    tx: &mut PgConnection,
    domain: &str,
    job: &JobRow,
) -> Result<(), sqlx::Error> {
    let change = Change::Cancelled(pb::ExportCancelled {
        rows_done: job.rows_done,
    });
    announce(tx, domain, job, change).await.map(|_| ())
}

/// Cancels job `id` of `enterprise_id`: a queued job at once, a running one
/// when its worker finishes the page it is on. A finished job is 4009.
pub async fn cancel(
    pool: &PgPool,
    domain: &str,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<pb::ExportJob, ServiceError> {
    let mut tx = db::begin_tenant(pool, enterprise_id).await?;
    let mut job = locked_job(&mut tx, id).await?;
    match JobStatus::try_from(job.status)? {
        JobStatus::Queued => {
            sqlx::query("update export_job set status = 5, finished_at = now() where id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            job.status = JobStatus::Cancelled.code();
            announce_cancelled(&mut tx, domain, &job).await?;
        }
        JobStatus::Running => {
            sqlx::query("update export_job set cancel_requested = true where id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            job.cancel_requested = true;
        }
        JobStatus::Succeeded | JobStatus::Failed | JobStatus::Cancelled => {
            return refuse(tx, "导出已结束，无法取消").await;
        }
    }
    tx.commit().await?;
    job.to_pb()
}

/// Runs job `id` again with the same filter and reach (a new run): allowed
/// once it has finished, failed or been cancelled; a queued or running job
/// is 4009.
pub async fn retry(
    pool: &PgPool,
    files: &FileStore,
    domain: &str,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<pb::ExportJob, ServiceError> {
    let mut tx = db::begin_tenant(pool, enterprise_id).await?;
    let old = locked_job(&mut tx, id).await?;
    match JobStatus::try_from(old.status)? {
        JobStatus::Queued | JobStatus::Running => {
            return refuse(tx, "导出正在进行，无法重试").await;
        }
        JobStatus::Succeeded | JobStatus::Failed | JobStatus::Cancelled => {}
    }
    let job: JobRow = sqlx::query_as(&format!(
        "update export_job set status = 1, run = run + 1, attempts = 0, cancel_requested = false, \
         lease_until = null, rows_done = 0, rows_total = 0, file_key = '', failure_reason = '', \
         started_at = null, finished_at = null where id = $1 returning {COLUMNS}"
    ))
    .bind(id)
    .fetch_one(&mut *tx)
    .await?;
    announce_requested(&mut tx, domain, &job).await?;
    tx.commit().await?;
    // The new run writes a new file; the old one is no longer named anywhere.
    if !old.file_key.is_empty() {
        files.delete(&old.file_key).await.ok();
    }
    job.to_pb()
}

// --- What a domain provides -----------------------------------------------

/// One cell of an exported row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    /// A fixed text, such as a code's label (no allocation per row).
    Label(&'static str),
    Number(f64),
    Empty,
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell::Text(text)
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell::Text(text.to_owned())
    }
}

impl From<i64> for Cell {
    fn from(n: i64) -> Self {
        // Exact up to 2^53, far beyond any count or amount in fen we export.
        Cell::Number(n as f64)
    }
}

impl From<i32> for Cell {
    fn from(n: i32) -> Self {
        Cell::Number(f64::from(n))
    }
}

impl From<f64> for Cell {
    fn from(n: f64) -> Self {
        Cell::Number(n)
    }
}

impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(value: Option<T>) -> Self {
        value.map_or(Cell::Empty, Into::into)
    }
}

/// What a kind's fetch knows of the job it serves.
#[derive(Debug, Clone)]
pub struct JobScope {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub requested_by: Option<Uuid>,
    /// The requester's reach when they asked (see [`NewExport::reach`]).
    pub reach: serde_json::Value,
    /// The domain's encoded filter (see [`NewExport::filter`]).
    pub filter: Vec<u8>,
}

/// One keyset page of rows.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub rows: Vec<Vec<Cell>>,
    /// Where the next page starts (the last row's sort key, encoded by the
    /// kind); `None` when this was the last page.
    pub next: Option<String>,
}

/// One exportable list of a domain.
pub trait ExportKind: Send + Sync {
    /// The header row.
    fn header(&self) -> Vec<String>;

    /// How many rows the job will write (for progress), in a transaction
    /// acting for the job's tenant.
    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>>;

    /// At most `limit` rows after `after` (from the start when `None`) in the
    /// list's order, filtered by the job's filter and reach. Keyset, never
    /// OFFSET: each page is an index range scan however deep it is.
    fn page<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
        after: Option<&'a str>,
        limit: i64,
    ) -> BoxFuture<'a, Result<Page, ServiceError>>;
}

// --- The worker -----------------------------------------------------------

/// Tuning of an [`ExportWorker`].
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// Rows fetched per keyset page.
    pub page_rows: i64,
    /// Data rows per worksheet before the next starts.
    pub sheet_rows: u32,
    /// How long a claim holds without a renewal (renewed with every page).
    pub lease: Duration,
    /// Claims of one run before the job fails instead of resuming.
    pub max_attempts: i32,
    /// How often to look for work when no notification came.
    pub poll: Duration,
    /// Least time between two progress events of a job.
    pub progress_every: Duration,
    /// Jobs one process runs at once.
    pub concurrency: usize,
    /// Where temporary worksheet and workbook files go.
    pub temp_dir: std::path::PathBuf,
}

impl Default for WorkerOptions {
    fn default() -> Self {
        WorkerOptions {
            page_rows: 2_000,
            sheet_rows: SHEET_ROWS,
            lease: Duration::from_secs(60),
            max_attempts: 3,
            poll: Duration::from_secs(2),
            progress_every: Duration::from_secs(1),
            concurrency: 2,
            temp_dir: std::env::temp_dir(),
        }
    }
}

/// Runs the export jobs of one service.
#[derive(Clone)]
pub struct ExportWorker {
    pool: PgPool,
    files: FileStore,
    domain: &'static str,
    kinds: HashMap<&'static str, Arc<dyn ExportKind>>,
    options: WorkerOptions,
    /// Tells this worker's claims apart in the logs.
    name: String,
}

impl std::fmt::Debug for ExportWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportWorker")
            .field("domain", &self.domain)
            .field("kinds", &self.kinds.keys().collect::<Vec<_>>())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// How a claimed job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Succeeded {
        rows: i64,
        file_key: String,
    },
    Failed(String),
    Cancelled,
    /// Another run took over (a retry); nothing was announced.
    Superseded,
}

enum WriterInput {
    Rows(Vec<Vec<Cell>>),
    Finish,
}

/// Why a run stopped early.
enum Stop {
    Cancelled,
    Superseded,
    Failed(String),
}

impl From<ServiceError> for Stop {
    fn from(err: ServiceError) -> Self {
        // An internal error was logged where it happened; the requester
        // reads the plain failure.
        match err.code {
            ErrorCode::Internal | ErrorCode::Unavailable => Stop::Failed(FAILED.to_owned()),
            _ => Stop::Failed(err.message),
        }
    }
}

impl From<sqlx::Error> for Stop {
    fn from(err: sqlx::Error) -> Self {
        Stop::from(ServiceError::from(err))
    }
}

impl ExportWorker {
    pub fn new(pool: PgPool, files: FileStore, domain: &'static str) -> ExportWorker {
        ExportWorker {
            pool,
            files,
            domain,
            kinds: HashMap::new(),
            options: WorkerOptions::default(),
            name: format!("{domain}-{}", Uuid::new_v4().simple()),
        }
    }

    /// Registers the kind `name` (what [`NewExport::kind`] names).
    pub fn kind(mut self, name: &'static str, kind: impl ExportKind + 'static) -> ExportWorker {
        self.kinds.insert(name, Arc::new(kind));
        self
    }

    pub fn options(mut self, options: WorkerOptions) -> ExportWorker {
        self.options = options;
        self
    }

    pub fn domain(&self) -> &'static str {
        self.domain
    }

    /// Runs jobs until `shutdown`, [`WorkerOptions::concurrency`] at a time.
    pub async fn run(self, shutdown: Shutdown) {
        let mut loops = tokio::task::JoinSet::new();
        for _ in 0..self.options.concurrency.max(1) {
            let worker = self.clone();
            let shutdown = shutdown.clone();
            loops.spawn(async move { worker.run_loop(shutdown).await });
        }
        while loops.join_next().await.is_some() {}
    }

    async fn run_loop(self, shutdown: Shutdown) {
        let mut wakeups = crate::wakeup::subscribe(&self.pool, WAKE_CHANNEL).await;
        while !shutdown.is_triggered() {
            match self.run_once().await {
                Ok(Some(_)) => continue,
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(error = %format!("{err:#}"), "Export worker failed; retrying.");
                }
            }
            tokio::select! {
                () = tokio::time::sleep(self.options.poll) => {}
                () = shutdown.wait() => {}
                () = wakeups.notified() => {}
            }
        }
    }

    /// Claims one job and runs it to its end; `None` when there was no work.
    pub async fn run_once(&self) -> anyhow::Result<Option<(Uuid, Outcome)>> {
        let Some(job) = self.claim().await? else {
            return Ok(None);
        };
        let id = job.id;
        let outcome = self.execute(job).await?;
        Ok(Some((id, outcome)))
    }

    /// Takes the oldest queued job, or a running one whose lease ran out.
    async fn claim(&self) -> anyhow::Result<Option<JobRow>> {
        let mut tx = db::begin_service(&self.pool).await?;
        let job: Option<JobRow> = sqlx::query_as(&format!(
            "update export_job set status = 2, attempts = attempts + 1, \
             lease_until = now() + make_interval(secs => $1), rows_done = 0, \
             started_at = coalesce(started_at, now()) \
             where id = (select id from export_job \
                 where status = 1 or (status = 2 and lease_until < now()) \
                 order by created_at limit 1 for update skip locked) \
             returning {COLUMNS}"
        ))
        .bind(self.options.lease.as_secs_f64())
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        if let Some(job) = &job {
            tracing::info!(job = %job.id, kind = %job.kind, run = job.run, attempt = job.attempts,
                worker = %self.name, "Export job claimed.");
        }
        Ok(job)
    }

    async fn execute(&self, job: JobRow) -> anyhow::Result<Outcome> {
        let outcome = if job.cancel_requested {
            Err(Stop::Cancelled)
        } else if job.attempts > self.options.max_attempts {
            Err(Stop::Failed(INTERRUPTED.to_owned()))
        } else {
            match self.kinds.get(job.kind.as_str()) {
                Some(kind) => self.write(&job, Arc::clone(kind)).await,
                None => Err(Stop::Failed(format!("{FAILED}：未知的导出类型"))),
            }
        };
        match outcome {
            Ok((rows, file_key, file_size)) => {
                if self.finish(&job, rows, &file_key, file_size).await? {
                    Ok(Outcome::Succeeded { rows, file_key })
                } else {
                    self.files.delete(&file_key).await.ok();
                    Ok(Outcome::Superseded)
                }
            }
            Err(Stop::Cancelled) => Ok(if self.end_cancelled(&job).await? {
                Outcome::Cancelled
            } else {
                Outcome::Superseded
            }),
            Err(Stop::Superseded) => Ok(Outcome::Superseded),
            Err(Stop::Failed(reason)) => Ok(if self.end_failed(&job, &reason).await? {
                Outcome::Failed(reason)
            } else {
                Outcome::Superseded
            }),
        }
    }

    /// Streams every row into a workbook and stores it: (rows, key, bytes).
    async fn write(
        &self,
        job: &JobRow,
        kind: Arc<dyn ExportKind>,
    ) -> Result<(i64, String, i64), Stop> {
        let scope = job.scope();
        let total = {
            let mut tx = db::begin_tenant(&self.pool, job.enterprise_id).await?;
            let total = kind.count(&mut tx, &scope).await?;
            tx.commit().await?;
            total
        };
        self.heartbeat(job, 0, total, true).await?;

        let dir = tempfile::Builder::new()
            .prefix("fleetdesk-export-")
            .tempdir_in(&self.options.temp_dir)
            .map_err(|e| Stop::from(ServiceError::internal(&e)))?;
        let target = dir.path().join("export.xlsx");
        // The workbook is written on a blocking thread while the next page is
        // fetched; two pages in flight bound the memory held.
        let (sender, mut receiver) = tokio::sync::mpsc::channel::<WriterInput>(2);
        let writer = {
            let header = kind.header();
            let sheet_rows = self.options.sheet_rows.max(1);
            let target = target.clone();
            tokio::task::spawn_blocking(move || {
                write_workbook(header, sheet_rows, &target, &mut receiver)
            })
        };

        let streamed = self
            .stream(job, &scope, kind.as_ref(), total, &sender)
            .await;
        let finished = match streamed {
            Ok(rows) => sender
                .send(WriterInput::Finish)
                .await
                .map(|()| rows)
                .map_err(|_| Stop::Failed(FAILED.to_owned())),
            Err(stop) => Err(stop),
        };
        drop(sender);
        let written = writer
            .await
            .map_err(|e| Stop::from(ServiceError::internal(&e)))?;
        let rows = finished?;
        let saved = written.map_err(|e| {
            tracing::error!(job = %job.id, error = %e, "Writing the export workbook failed.");
            Stop::Failed(FAILED.to_owned())
        })?;
        if !saved {
            return Err(Stop::Failed(FAILED.to_owned()));
        }
        let key = files::key(
            job.enterprise_id,
            "export",
            &format!("{}-{}", job.id, job.run),
            &format!("{}.xlsx", job.name),
        );
        let size = self.files.put_file(&key, &target).await?;
        Ok((rows, key, i64::try_from(size).unwrap_or(i64::MAX)))
    }

    /// Fetches page after page and hands them to the writer; renews the
    /// lease, reports progress and watches for a cancel once a progress interval.
    async fn stream(
        &self,
        job: &JobRow,
        scope: &JobScope,
        kind: &dyn ExportKind,
        total: i64,
        sender: &tokio::sync::mpsc::Sender<WriterInput>,
    ) -> Result<i64, Stop> {
        let mut after: Option<String> = None;
        let mut done: i64 = 0;
        let mut last_report = Instant::now();
        loop {
            let page = {
                let mut tx = db::begin_tenant(&self.pool, job.enterprise_id).await?;
                let page = kind
                    .page(&mut tx, scope, after.as_deref(), self.options.page_rows)
                    .await?;
                tx.commit().await?;
                page
            };
            let count = page.rows.len() as i64;
            done += count;
            if count > 0 {
                // Waits only while the writer is two pages behind.
                sender
                    .send(WriterInput::Rows(page.rows))
                    .await
                    .map_err(|_| Stop::Failed(FAILED.to_owned()))?;
            }
            let last = page.next.is_none() || count < self.options.page_rows;
            // A heartbeat is a committed write: once a progress interval,
            // not once a page (500 commits of a million-row export).
            if last || last_report.elapsed() >= self.options.progress_every {
                self.heartbeat(job, done, total.max(done), !last).await?;
                last_report = Instant::now();
            }
            if last {
                return Ok(done);
            }
            after = page.next;
        }
    }

    /// Renews the lease and records the rows done, with a progress event
    /// when `report`; stops the run when it was cancelled or superseded.
    async fn heartbeat(
        &self,
        job: &JobRow,
        done: i64,
        total: i64,
        report: bool,
    ) -> Result<(), Stop> {
        let mut tx = db::begin_service(&self.pool).await?;
        let state: Option<(bool,)> = sqlx::query_as(
            "update export_job set rows_done = $3, rows_total = $4, \
             lease_until = now() + make_interval(secs => $5) \
             where id = $1 and run = $2 and status = 2 returning cancel_requested",
        )
        .bind(job.id)
        .bind(job.run)
        .bind(done)
        .bind(total)
        .bind(self.options.lease.as_secs_f64())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((cancel_requested,)) = state else {
            return Err(Stop::Superseded);
        };
        if cancel_requested {
            return Err(Stop::Cancelled);
        }
        if report {
            let change = Change::Progressed(pb::ExportProgressed {
                rows_done: done,
                rows_total: total,
            });
            announce(&mut tx, self.domain, job, change).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Marks the run succeeded and announces the file; false when the run
    /// was superseded meanwhile.
    async fn finish(
        &self,
        job: &JobRow,
        rows: i64,
        file_key: &str,
        file_size: i64,
    ) -> anyhow::Result<bool> {
        let mut tx = db::begin_service(&self.pool).await?;
        let updated = sqlx::query(
            "update export_job set status = 3, rows_done = $3, rows_total = $3, file_key = $4, \
             lease_until = null, finished_at = now() where id = $1 and run = $2 and status = 2",
        )
        .bind(job.id)
        .bind(job.run)
        .bind(rows)
        .bind(file_key)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Ok(false);
        }
        let change = Change::Finished(pb::ExportFinished {
            rows,
            file_key: file_key.to_owned(),
            file_size,
        });
        announce(&mut tx, self.domain, job, change).await?;
        tx.commit().await?;
        tracing::info!(job = %job.id, rows, file_size, "Export job finished.");
        Ok(true)
    }

    async fn end_failed(&self, job: &JobRow, reason: &str) -> anyhow::Result<bool> {
        let mut tx = db::begin_service(&self.pool).await?;
        let done: Option<(i64,)> = sqlx::query_as(
            "update export_job set status = 4, failure_reason = $3, lease_until = null, \
             finished_at = now() where id = $1 and run = $2 and status = 2 returning rows_done",
        )
        .bind(job.id)
        .bind(job.run)
        .bind(reason)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((rows_done,)) = done else {
            return Ok(false);
        };
        let change = Change::Failed(pb::ExportFailed {
            reason: reason.to_owned(),
            rows_done,
        });
        announce(&mut tx, self.domain, job, change).await?;
        tx.commit().await?;
        tracing::warn!(job = %job.id, reason, "Export job failed.");
        Ok(true)
    }

    async fn end_cancelled(&self, job: &JobRow) -> anyhow::Result<bool> {
        let mut tx = db::begin_service(&self.pool).await?;
        let done: Option<JobRow> = sqlx::query_as(&format!(
            "update export_job set status = 5, lease_until = null, finished_at = now() \
             where id = $1 and run = $2 and status = 2 returning {COLUMNS}"
        ))
        .bind(job.id)
        .bind(job.run)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(done) = done else {
            return Ok(false);
        };
        announce_cancelled(&mut tx, self.domain, &done).await?;
        tx.commit().await?;
        tracing::info!(job = %job.id, "Export job cancelled.");
        Ok(true)
    }
}

/// Writes the rows it receives into `target`: a header on each sheet, a new
/// sheet every `sheet_rows` rows, streamed (see [`xlsx`]). Returns false
/// when the input ended without [`WriterInput::Finish`] (the run stopped;
/// nothing is saved).
fn write_workbook(
    header: Vec<String>,
    sheet_rows: u32,
    target: &std::path::Path,
    input: &mut tokio::sync::mpsc::Receiver<WriterInput>,
) -> std::io::Result<bool> {
    let file = std::io::BufWriter::with_capacity(256 * 1024, std::fs::File::create(target)?);
    let mut book = xlsx::StreamingBook::new(file, header, sheet_rows);
    loop {
        match input.blocking_recv() {
            Some(WriterInput::Rows(rows)) => {
                for row in rows {
                    book.push_row(row)?;
                }
            }
            Some(WriterInput::Finish) => break,
            None => return Ok(false),
        }
    }
    std::io::Write::flush(&mut book.finish()?)?;
    Ok(true)
}

// --- Cancel and retry over gRPC ------------------------------------------

/// The service's `ExportJobService`: cancel and retry of its jobs, for the
/// caller's tenant (the gateway checks the record's reach through org first).
#[derive(Clone, Debug)]
pub struct ExportJobApi {
    pub pool: PgPool,
    pub files: FileStore,
    pub domain: &'static str,
}

#[tonic::async_trait]
impl pb::export_job_service_server::ExportJobService for ExportJobApi {
    async fn cancel_export_job(
        &self,
        request: Request<pb::CancelExportJobRequest>,
    ) -> Result<Response<pb::CancelExportJobResponse>, Status> {
        let tenant = grpc::tenant(&request)?;
        let id = crate::convert::id(&request.get_ref().id)?;
        let job = cancel(&self.pool, self.domain, tenant, id).await?;
        Ok(Response::new(pb::CancelExportJobResponse {
            job: Some(job),
        }))
    }

    async fn retry_export_job(
        &self,
        request: Request<pb::RetryExportJobRequest>,
    ) -> Result<Response<pb::RetryExportJobResponse>, Status> {
        let tenant = grpc::tenant(&request)?;
        let id = crate::convert::id(&request.get_ref().id)?;
        let job = retry(&self.pool, &self.files, self.domain, tenant, id).await?;
        Ok(Response::new(pb::RetryExportJobResponse { job: Some(job) }))
    }
}
