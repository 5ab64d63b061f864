//! This service's exports (ARCHITECTURE §3) through kit::export. Each
//! exportable list — charging accounts, balance allocations, cards, card
//! amount changes, sessions, plate scans — has an `ExportKind` in its subject's `export` module
//! that runs the list's own filter (`store::filtered`, the function the list
//! uses) under the requester's reach, newest first by keyset pages.
//!
//! Here: the domain's name, stored-code labels and the worker that runs
//! every kind; queueing a job with the caller's reach, the actor a job acts
//! as, keyset cursors and the cell formats are kit's (`export_scope`).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, ExportWorker, Page};
use fleetdesk_kit::export_scope;
use fleetdesk_kit::files::FileStore;
use fleetdesk_proto::common::v1 as common;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::grpc::Actor;
use crate::{
    accounts, allocations, analysis, card_changes, cards, plate_scans, sessions, statements,
};

pub use fleetdesk_kit::export_scope::{
    NewJob, actor, after, cursor, filter, moment, range_json, text,
};

/// The domain whose events announce this service's jobs (org routes cancel
/// and retry of a record back here by it).
pub const DOMAIN: &str = "energy";

/// Queues an export for `actor` in `tx` (the caller commits).
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    job: NewJob,
) -> Result<common::ExportJob, ServiceError> {
    export_scope::queue(tx, DOMAIN, actor, job).await
}

/// An amount in fen as a yuan cell.
pub fn money(fen: i64) -> Cell {
    export_scope::money(Some(fen))
}

/// A stored code's label, empty when unknown.
pub fn label<T>(code: i16, name_of: impl Fn(T) -> &'static str) -> Cell
where
    T: TryFrom<i16, Error = crate::codes::UnknownCode>,
{
    crate::codes::optional::<T>(Some(code)).map_or(Cell::Empty, |v| Cell::Label(name_of(v)))
}

/// A kind's header row as the worker takes it.
pub fn header(titles: &[&str]) -> Vec<String> {
    titles.iter().map(|h| (*h).to_owned()).collect()
}

/// One keyset page of a list read newest first by (time, id): its rows as
/// cells, and where the next page starts (`key`: a row's time and id).
pub fn keyset_page<R>(
    rows: Vec<R>,
    key: impl Fn(&R) -> (DateTime<Utc>, Uuid),
    cells: impl FnMut(R) -> Vec<Cell>,
) -> Page {
    let next = rows.last().map(|r| {
        let (at, id) = key(r);
        cursor(at, id)
    });
    Page {
        rows: rows.into_iter().map(cells).collect(),
        next,
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
