//! What this crate's exports share through kit::export. Each exportable
//! list — vehicles, the binding log, usage records, private cars, drivers —
//! has a `ListExport` in its subject's `export` module that runs the list's
//! own filter (`store::filtered`, the same function the list uses) under the
//! requester's reach, newest first by keyset pages.
//!
//! Here: the export domain of the vehicle target (its one worker runs the
//! kinds of this crate and of fleetdesk-telemetry, so both queue under this
//! name) and stored-code labels; queueing a job with the caller's reach, the
//! actor a job acts as, keyset cursors and the cell formats are kit's
//! (`export::scope`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::Cell;
use fleetdesk_kit::export::scope;
use fleetdesk_proto::common::v1 as common;
use sqlx_postgres::PgConnection;

use crate::context::Actor;

pub use fleetdesk_kit::export::scope::{
    ListExport, NewJob, actor, after, cursor, day, filter, header, moment, money, range_json, text,
    yuan,
};

/// The domain whose events announce the vehicle target's jobs (org routes
/// cancel and retry of a record back here by it).
pub const DOMAIN: &str = "vehicle";

/// Queues an export for `actor` in `tx` (the caller commits).
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    job: NewJob,
) -> Result<common::ExportJob, ServiceError> {
    scope::queue(tx, DOMAIN, actor, job).await
}

/// A stored code's label, empty when unknown.
pub fn label<T>(code: Option<i16>, name_of: impl Fn(T) -> &'static str) -> Cell
where
    T: TryFrom<i16, Error = crate::codes::UnknownCode>,
{
    crate::codes::optional::<T>(code).map_or(Cell::Empty, |v| Cell::Label(name_of(v)))
}
