//! This service's exports (ARCHITECTURE §3) through kit::export. Each
//! exportable list — vehicles, the binding log, usage records, private cars,
//! drivers — has an `ExportKind` in its subject's `export` module that runs
//! the list's own filter (`store::filtered`, the same function the list
//! uses) under the requester's reach, newest first by keyset pages.
//!
//! Here: the domain's name, stored-code labels and the worker that runs
//! every kind; queueing a job with the caller's reach, the actor a job acts
//! as, keyset cursors and the cell formats are kit's (`export_scope`).

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::{Cell, ExportWorker};
use fleetdesk_kit::export_scope;
use fleetdesk_kit::files::FileStore;
use fleetdesk_proto::common::v1 as common;
use sqlx::{PgConnection, PgPool};

use crate::grpc::Actor;
use crate::{bindings, drivers, geofences, positions, private_cars, usage, vehicles};

pub use fleetdesk_kit::export_scope::{
    NewJob, actor, after, cursor, day, filter, moment, money, range_json, text, yuan,
};

/// The domain whose events announce this service's jobs (org routes cancel
/// and retry of a record back here by it).
pub const DOMAIN: &str = "vehicle";

/// Queues an export for `actor` in `tx` (the caller commits).
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    job: NewJob,
) -> Result<common::ExportJob, ServiceError> {
    export_scope::queue(tx, DOMAIN, actor, job).await
}

/// A stored code's label, empty when unknown.
pub fn label<T>(code: Option<i16>, name_of: impl Fn(T) -> &'static str) -> Cell
where
    T: TryFrom<i16, Error = crate::codes::UnknownCode>,
{
    crate::codes::optional::<T>(code).map_or(Cell::Empty, |v| Cell::Label(name_of(v)))
}

/// The worker that runs every export kind of this service.
pub fn worker(pool: PgPool, files: FileStore) -> ExportWorker {
    let mut worker = ExportWorker::new(pool, files, DOMAIN)
        .kind(vehicles::export::KIND, vehicles::export::VehiclesExport)
        .kind(bindings::export::KIND, bindings::export::BindingsExport)
        .kind(
            private_cars::export::KIND,
            private_cars::export::PrivateCarsExport,
        )
        .kind(drivers::export::KIND, drivers::export::DriversExport)
        .kind(geofences::export::KIND, geofences::export::CrossingsExport)
        .kind(positions::export::KIND, positions::export::TrackExport);
    for (name, kind) in usage::export::kinds() {
        worker = worker.kind(name, kind);
    }
    worker
}
