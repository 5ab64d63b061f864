//! What this service's exports share through kit::export. Each exportable
//! list — opening applications, charging accounts, balance allocations,
//! cards, card amount changes, sessions, plate scans, statements,
//! vehicles' charging behaviour — has a `ListExport` in its subject's
//! `export` module that runs the list's own filter (`store::filtered`, the
//! function the list uses) under the requester's reach, in the list's
//! order by keyset pages.
//!
//! Here: the domain's name, queueing and stored-code labels; the actor a
//! job acts as, keyset cursors, the paging and the cell formats are kit's
//! (`export::scope`). The worker that runs every kind is wired at start-up
//! (`startup`), so that the subjects use this module and it uses none of
//! them.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::Cell;
use fleetdesk_kit::export::scope;
use fleetdesk_proto::common::v1 as common;
use sqlx_postgres::PgConnection;

use crate::context::Actor;

pub use fleetdesk_kit::export::scope::{
    ListExport, NewJob, actor, filter, header, moment, range_json, text,
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
    scope::queue(tx, DOMAIN, actor, job).await
}

/// An amount in fen as a yuan cell.
pub fn money(fen: i64) -> Cell {
    scope::money(Some(fen))
}

/// A stored code's label, empty when unknown.
pub fn label<T>(code: i16, name_of: impl Fn(T) -> &'static str) -> Cell
where
    T: TryFrom<i16, Error = crate::codes::UnknownCode>,
{
    crate::codes::optional::<T>(Some(code)).map_or(Cell::Empty, |v| Cell::Label(name_of(v)))
}
