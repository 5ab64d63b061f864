//! This service's exports (ARCHITECTURE §3) through kit::export. Each
//! exportable list — charging accounts, balance allocations, cards, card
//! amount changes, sessions, plate scans — has an `ExportKind` in its subject's `export` module
//! that runs the list's own filter (`store::filtered`, the function the list
//! uses) under the requester's reach, newest first by keyset pages.
//!
//! Here: queueing a job for the caller (the checked filter and the caller's
//! reach go with it, since the worker runs after the request), the actor a
//! job acts as, keyset cursors, the cell formats an operator reads (times in
//! Asia/Shanghai, money in yuan from integer fen) and the worker.

use chrono::{DateTime, Datelike, FixedOffset, Timelike, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{self, Cell, ExportWorker, JobScope, NewExport};
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::list::Cursor;
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_proto::common::v1 as common;
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::grpc::Actor;
use crate::{
    accounts, allocations, analysis, card_changes, cards, plate_scans, sessions, statements,
};

/// The domain whose events announce this service's jobs (org routes cancel
/// and retry of a record back here by it).
pub const DOMAIN: &str = "energy";

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
    /// The export record's name, e.g. 充电卡.
    pub name: String,
    /// The console page it came from, e.g. electricCard.
    pub module: &'static str,
    /// The list's proto request, encoded.
    pub filter: Vec<u8>,
    /// The same filter as the record shows it.
    pub filters_json: serde_json::Value,
}

/// Queues an export for `actor` in `tx` (the caller commits).
pub async fn start(
    tx: &mut PgConnection,
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
        DOMAIN,
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

/// The requester as the job acts for them: their tenant, their id and the
/// reach they had when they asked.
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
    let Some(after) = after else {
        return Ok(None);
    };
    let bad = || ServiceError::invalid("after", "分页位置无效");
    let (micros, id) = after.split_once(',').ok_or_else(bad)?;
    let at = micros
        .parse::<i64>()
        .ok()
        .and_then(DateTime::from_timestamp_micros)
        .ok_or_else(bad)?;
    let id = Uuid::parse_str(id).map_err(|_| bad())?;
    Ok(Some(Cursor { at, id }))
}

/// A moment in Asia/Shanghai, e.g. 2026-11-23 08:30:00.
pub fn moment(at: Option<DateTime<Utc>>) -> Cell {
    let shanghai = FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset");
    at.map_or(Cell::Empty, |t| {
        let t = t.with_timezone(&shanghai);
        Cell::Text(format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        ))
    })
}

/// An amount in fen as a yuan cell (two decimals, integer arithmetic).
pub fn money(fen: i64) -> Cell {
    Cell::Text(crate::ledger::yuan(fen))
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

/// A stored code's label, empty when unknown.
pub fn label<T>(code: i16, name_of: impl Fn(T) -> &'static str) -> Cell
where
    T: TryFrom<i16, Error = crate::codes::UnknownCode>,
{
    crate::codes::optional::<T>(Some(code)).map_or(Cell::Empty, |v| Cell::Label(name_of(v)))
}

/// A time range filter as the record shows it: `[start, end)` in RFC 3339.
pub fn range_json(range: Option<&common::TimeRange>) -> serde_json::Value {
    let side = |ts: Option<&prost_types::Timestamp>| {
        ts.and_then(fleetdesk_kit::convert::datetime)
            .map(|t| t.to_rfc3339())
    };
    match range {
        None => serde_json::Value::Null,
        Some(r) => serde_json::json!([side(r.start.as_ref()), side(r.end.as_ref())]),
    }
}

/// The worker that runs every export kind of this service (`distances`:
/// the kilometres of the behaviour export).
pub fn worker(
    pool: PgPool,
    files: FileStore,
    distances: Option<crate::analysis::distances::Distances>,
) -> ExportWorker {
    ExportWorker::new(pool, files, DOMAIN)
        .kind(accounts::export::KIND, accounts::export::AccountsExport)
        .kind(
            allocations::export::KIND,
            allocations::export::AllocationsExport,
        )
        .kind(cards::export::KIND, cards::export::CardsExport)
        .kind(
            card_changes::export::KIND,
            card_changes::export::ChangesExport,
        )
        .kind(sessions::export::KIND, sessions::export::SessionsExport)
        .kind(plate_scans::export::KIND, plate_scans::export::ScansExport)
        .kind(
            statements::export::KIND,
            statements::export::StatementsExport,
        )
        .kind(
            analysis::export::KIND,
            analysis::export::BehaviorsExport { distances },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_and_a_bad_one_is_refused() {
        let at = DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap();
        let id = Uuid::from_u128(9);
        let parsed = after(Some(&cursor(at, id))).unwrap().unwrap();
        assert_eq!((parsed.at, parsed.id), (at, id));
        assert!(after(Some("x")).is_err());
    }

    #[test]
    fn moments_are_shanghai_time_and_money_is_yuan() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T16:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(moment(Some(at)), Cell::Text("2026-11-23 00:30:00".into()));
        assert_eq!(money(123_456), Cell::Text("1234.56".into()));
    }

    #[test]
    fn a_job_acts_with_the_reach_it_was_asked_with() {
        let org = Uuid::from_u128(3);
        let job = JobScope {
            id: Uuid::nil(),
            enterprise_id: Uuid::from_u128(1),
            requested_by: None,
            reach: serde_json::json!({ "all": false, "org_ids": [org], "own": null }),
            filter: Vec::new(),
        };
        let actor = actor(&job).unwrap();
        assert!(actor.reach.sees(Some(org), None));
        assert!(!actor.reach.sees(Some(Uuid::from_u128(4)), None));
    }
}
