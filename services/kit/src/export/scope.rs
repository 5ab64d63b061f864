//! What a domain service's Export* handlers and its [`ExportKind`]s share
//! (docs/ARCHITECTURE.md §3): queueing a job for the caller with their reach (the
//! worker runs after the request, so the reach goes with the job), acting
//! as the requester inside the worker, the keyset cursor of a page, and
//! the cell formats an operator reads (times in Asia/Shanghai, money in
//! yuan with two decimals from integer fen).
//!
//! Most lists export the same way, so a list implements [`ListExport`] (its
//! scope, count, keyset page and cells) and gets [`ExportKind`] from it; the
//! paging, cursor text and row-to-cell loop are written once, here.
//!
//! [`ExportKind`]: crate::export::ExportKind

use std::future::Future;

use chrono::{DateTime, Datelike, FixedOffset, Timelike, Utc};
use fleetdesk_proto::common::v1 as common;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::actor::Actor;
use crate::error::ServiceError;
use crate::export::{self, Cell, ExportKind, JobScope, NewExport, Page};
use crate::list::Cursor;
use crate::reach::ResolvedReach;

/// The requester's reach as a job keeps it (already expanded through the
/// org_unit replica when the export was asked for).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct StoredReach {
    all: bool,
    org_ids: Vec<Uuid>,
    own: Option<Uuid>,
}

/// What an Export* handler queues.
#[derive(Debug, Clone)]
pub struct NewJob {
    /// The kind registered with the worker (its module's `KIND`).
    pub kind: &'static str,
    /// The export record's name, e.g. 车辆档案.
    pub name: String,
    /// The console page it came from, e.g. carFiles.
    pub module: &'static str,
    /// The list's proto filter, encoded.
    pub filter: Vec<u8>,
    /// The same filter as the record shows it.
    pub filters_json: serde_json::Value,
}

/// Queues an export of `domain` for `actor` in `tx` (the caller commits):
/// the job, its announcement to org, and the wake-up of a worker.
pub async fn queue(
    tx: &mut PgConnection,
    domain: &'static str,
    actor: &Actor,
    job: NewJob,
) -> Result<common::ExportJob, ServiceError> {
    let reach = StoredReach {
        all: actor.reach.all,
        org_ids: actor.reach.org_ids.clone(),
        own: actor.reach.own,
    };
    let job = export::start(
        tx,
        domain,
        actor.enterprise_id,
        actor.user_id,
        NewExport {
            kind: job.kind,
            name: job.name,
            module: job.module.to_owned(),
            filter: job.filter,
            filters_json: job.filters_json.to_string(),
            reach: serde_json::to_value(&reach).map_err(|e| ServiceError::internal(&e))?,
        },
    )
    .await?;
    tracing::info!(job = %job.id, kind = %job.name, "Export queued.");
    Ok(job)
}

/// The requester as the job acts for them: their tenant, their id (their
/// own rows stay visible) and the reach they had when they asked.
pub fn actor(job: &JobScope) -> Result<Actor, ServiceError> {
    let reach: StoredReach =
        serde_json::from_value(job.reach.clone()).map_err(|e| ServiceError::internal(&e))?;
    let mut org_ids = reach.org_ids;
    // `ResolvedReach::sees` binary-searches them.
    org_ids.sort_unstable();
    Ok(Actor {
        enterprise_id: job.enterprise_id,
        user_id: job.requested_by,
        name: String::new(),
        reach: ResolvedReach {
            all: reach.all,
            org_ids,
            own: reach.own,
        },
        idempotency_key: None,
    })
}

/// Decodes a job's stored proto filter.
pub fn filter<F: prost::Message + Default>(job: &JobScope) -> Result<F, ServiceError> {
    F::decode(job.filter.as_slice()).map_err(|e| ServiceError::internal(&e))
}

/// `<microseconds since the epoch>,<id>`: where the next page starts.
pub fn cursor(at: DateTime<Utc>, id: Uuid) -> String {
    format!("{},{id}", at.timestamp_micros())
}

/// The keyset position a page starts after; `None` for the first page.
pub fn after(after: Option<&str>) -> Result<Option<Cursor>, ServiceError> {
    after.map(Cursor::decode).transpose()
}

fn bad_position() -> ServiceError {
    ServiceError::invalid("after", "分页位置无效")
}

fn micros(text: &str) -> Result<DateTime<Utc>, ServiceError> {
    text.parse::<i64>()
        .ok()
        .and_then(DateTime::from_timestamp_micros)
        .ok_or_else(bad_position)
}

/// A header row from its titles.
pub fn header(titles: &[&str]) -> Vec<String> {
    titles.iter().map(|t| (*t).to_owned()).collect()
}

// --- A list as an export --------------------------------------------------

/// The sort key of a page's last row, as the job keeps it between pages
/// (the worker stores it as text).
pub trait PageKey: Sized + Send {
    fn encode(&self) -> String;
    /// A key read back; a malformed one is refused as `after`.
    fn decode(text: &str) -> Result<Self, ServiceError>;
}

/// (time, id): `<microseconds since the epoch>,<id>`.
impl PageKey for Cursor {
    fn encode(&self) -> String {
        cursor(self.at, self.id)
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        let (at, id) = text.split_once(',').ok_or_else(bad_position)?;
        Ok(Cursor {
            at: micros(at)?,
            id: Uuid::parse_str(id).map_err(|_| bad_position())?,
        })
    }
}

/// A time alone, for lists whose time is unique (a vehicle's track):
/// `<microseconds since the epoch>`.
impl PageKey for DateTime<Utc> {
    fn encode(&self) -> String {
        self.timestamp_micros().to_string()
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        micros(text)
    }
}

/// One exportable list: what the job's filter and reach select
/// ([`ListExport::scope`], read for the count and again for every page:
/// the worker keeps only the page key between pages), how many rows that
/// is, a keyset page in the list's order, and a row's cells. Every
/// `ListExport` is an [`ExportKind`].
pub trait ListExport: Send + Sync {
    /// What the count and the pages filter by, usually the requester
    /// ([`actor`]) and the list's own query.
    type Scope: Send + Sync;
    /// A row as the list's store reads it.
    type Row: Send;
    /// Where a page starts: the last row's sort key.
    type Key: PageKey;

    /// The header row.
    fn header(&self) -> Vec<String>;

    /// The job's scope: its requester and decoded filter.
    fn scope(
        &self,
        conn: &mut PgConnection,
        job: &JobScope,
    ) -> impl Future<Output = Result<Self::Scope, ServiceError>> + Send;

    /// How many rows the job will write.
    fn count(
        &self,
        conn: &mut PgConnection,
        scope: &Self::Scope,
    ) -> impl Future<Output = Result<i64, ServiceError>> + Send;

    /// At most `limit` rows after `after` (from the start when `None`).
    fn page(
        &self,
        conn: &mut PgConnection,
        scope: &Self::Scope,
        after: Option<Self::Key>,
        limit: i64,
    ) -> impl Future<Output = Result<Vec<Self::Row>, ServiceError>> + Send;

    /// A row's sort key (where the page after it starts).
    fn key(row: &Self::Row) -> Self::Key;

    /// A row's cells, in the header's order.
    fn cells(&self, row: Self::Row) -> Vec<Cell>;
}

impl<T: ListExport> ExportKind for T {
    fn header(&self) -> Vec<String> {
        ListExport::header(self)
    }

    fn count<'a>(
        &'a self,
        conn: &'a mut PgConnection,
        job: &'a JobScope,
    ) -> BoxFuture<'a, Result<i64, ServiceError>> {
        Box::pin(async move {
            let scope = ListExport::scope(self, conn, job).await?;
            ListExport::count(self, conn, &scope).await
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
            let scope = ListExport::scope(self, conn, job).await?;
            let after = after.map(T::Key::decode).transpose()?;
            let rows = ListExport::page(self, conn, &scope, after, limit).await?;
            let next = rows.last().map(|row| T::key(row).encode());
            Ok(Page {
                rows: rows.into_iter().map(|row| self.cells(row)).collect(),
                next,
            })
        })
    }
}

fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// A date as the operator's calendar shows it (Asia/Shanghai), e.g. 2026-11-23.
/// (Its digits are written one by one: a format string is interpreted
/// again on every call, a visible share of a million-row export.)
pub fn day(at: Option<DateTime<Utc>>) -> Cell {
    at.map_or(Cell::Empty, |t| {
        let mut text = String::with_capacity(10);
        push_date(&mut text, &t.with_timezone(&shanghai()));
        Cell::Text(text)
    })
}

/// A moment in Asia/Shanghai, e.g. 2026-11-23 08:30:00.
pub fn moment(at: Option<DateTime<Utc>>) -> Cell {
    at.map_or(Cell::Empty, |t| {
        let t = t.with_timezone(&shanghai());
        let mut text = String::with_capacity(19);
        push_date(&mut text, &t);
        text.push(' ');
        push_padded(&mut text, t.hour(), 2);
        text.push(':');
        push_padded(&mut text, t.minute(), 2);
        text.push(':');
        push_padded(&mut text, t.second(), 2);
        Cell::Text(text)
    })
}

/// `2026-11-23`.
fn push_date(text: &mut String, t: &impl Datelike) {
    match u32::try_from(t.year()) {
        Ok(year) if year <= 9999 => push_padded(text, year, 4),
        _ => text.push_str(&format!("{:04}", t.year())),
    }
    text.push('-');
    push_padded(text, t.month(), 2);
    text.push('-');
    push_padded(text, t.day(), 2);
}

/// The last `width` decimal digits of `n`, zero-padded.
fn push_padded(text: &mut String, n: u32, width: u32) {
    for place in (0..width).rev() {
        let digit = n / 10u32.pow(place) % 10;
        text.push(char::from(
            b'0' + u8::try_from(digit).expect("a decimal digit"),
        ));
    }
}

/// An amount in fen as yuan with two decimals (integer arithmetic, no float):
/// 123456 → 1234.56, -5 → -0.05.
pub fn yuan(fen: i64) -> String {
    let sign = if fen < 0 { "-" } else { "" };
    let abs = fen.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

/// An optional amount in fen as a yuan cell.
pub fn money(fen: Option<i64>) -> Cell {
    fen.map_or(Cell::Empty, |f| Cell::Text(yuan(f)))
}

/// Text, empty when blank.
pub fn text(value: impl Into<String>) -> Cell {
    let value = value.into();
    if value.is_empty() {
        Cell::Empty
    } else {
        Cell::Text(value)
    }
}

/// A time range filter as the record shows it: `[start, end)` in RFC 3339.
pub fn range_json(range: Option<&common::TimeRange>) -> serde_json::Value {
    let side = |ts: Option<&prost_types::Timestamp>| {
        ts.and_then(crate::convert::datetime)
            .map(|t| t.to_rfc3339())
    };
    match range {
        None => serde_json::Value::Null,
        Some(r) => serde_json::json!([side(r.start.as_ref()), side(r.end.as_ref())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_read_as_yuan_with_two_decimals() {
        assert_eq!(yuan(0), "0.00");
        assert_eq!(yuan(5), "0.05");
        assert_eq!(yuan(123_456), "1234.56");
        assert_eq!(yuan(-250), "-2.50");
        assert_eq!(yuan(i64::MIN), "-92233720368547758.08");
    }

    #[test]
    fn dates_are_shanghai_days() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T16:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(day(Some(at)), Cell::Text("2026-11-23".into()));
        assert_eq!(moment(Some(at)), Cell::Text("2026-11-23 00:30:00".into()));
        assert_eq!(day(None), Cell::Empty);
        let utc = |y, m, d, h, min, sec| {
            chrono::NaiveDate::from_ymd_opt(y, m, d)
                .and_then(|d| d.and_hms_opt(h, min, sec))
                .unwrap()
                .and_utc()
        };
        assert_eq!(
            moment(Some(utc(2026, 12, 31, 15, 59, 59))),
            Cell::Text("2026-12-31 23:59:59".into())
        );
        assert_eq!(
            moment(Some(utc(2026, 12, 31, 16, 0, 7))),
            Cell::Text("2027-01-01 00:00:07".into())
        );
        assert_eq!(
            day(Some(utc(999, 3, 4, 0, 0, 0))),
            Cell::Text("0999-03-04".into())
        );
        assert_eq!(
            day(Some(utc(12345, 6, 7, 0, 0, 0))),
            Cell::Text("12345-06-07".into())
        );
    }

    #[test]
    fn a_cursor_reads_back_and_a_bad_one_is_refused() {
        let at = DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap();
        let id = Uuid::from_u128(9);
        let parsed = after(Some(&cursor(at, id))).unwrap().unwrap();
        assert_eq!((parsed.at, parsed.id), (at, id));
        assert_eq!(after(None).unwrap(), None);
        assert!(after(Some("x")).is_err());
        assert!(after(Some("1,nope")).is_err());
    }

    #[test]
    fn a_time_key_reads_back_and_a_bad_one_is_refused() {
        let at = DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap();
        assert_eq!(DateTime::<Utc>::decode(&at.encode()).unwrap(), at);
        assert!(DateTime::<Utc>::decode("x").is_err());
    }

    #[test]
    fn a_job_acts_with_the_reach_it_was_asked_with() {
        let org = Uuid::from_u128(3);
        let me = Uuid::from_u128(7);
        let job = JobScope {
            id: Uuid::nil(),
            enterprise_id: Uuid::from_u128(1),
            requested_by: Some(me),
            reach: serde_json::json!({ "all": false, "org_ids": [org], "own": me }),
            filter: Vec::new(),
        };
        let actor = actor(&job).unwrap();
        assert!(actor.reach.sees(Some(org), None));
        assert!(!actor.reach.sees(Some(Uuid::from_u128(4)), None));
        assert!(actor.reach.sees(None, Some(me)));
        assert_eq!(actor.enterprise_id, Uuid::from_u128(1));
    }
}
