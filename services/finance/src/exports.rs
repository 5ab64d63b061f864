//! What this service's exports share through kit::export. Every list the
//! console shows has a `ListExport` in its subject's `export` (bills,
//! orders, payments, monthly, invoices, refunds, coupons) that runs the
//! list's own filter under the requester's reach, in the list's order by
//! keyset pages. Here: the domain's name, queueing and cell
//! formats; the worker that runs every kind is wired at start-up
//! (`startup`), so that the subjects use this module and it uses none.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::Cell;
use fleetdesk_kit::export::scope;
use fleetdesk_proto::common::v1 as common;
use sqlx_postgres::PgConnection;

use crate::context::Actor;

pub use fleetdesk_kit::export::scope::{
    ListExport, NewJob, actor, filter, header, moment, range_json, text,
};

/// The domain whose events announce this service's jobs.
pub const DOMAIN: &str = "finance";

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
