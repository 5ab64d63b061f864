//! What this crate's exports share through kit::export: each exportable
//! list (the reminders, the violations) has a `ListExport` in its subject's `export`
//! module; the vehicle target's worker runs them under the export domain
//! it shares with fleetdesk-assets ([`DOMAIN`]), registered with [`register`].

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::export::ExportWorker;
use fleetdesk_proto::common::v1 as common;
use sqlx_postgres::PgConnection;

use crate::context::Actor;
use crate::{inspections, insurance, reminders, repairs, violations};

pub use fleetdesk_assets::exports::DOMAIN;
pub use fleetdesk_kit::export::scope::{
    ListExport, NewJob, actor, day, filter, header, moment, range_json, text,
};

/// Queues an export for `actor` in `tx` (the caller commits).
pub async fn start(
    tx: &mut PgConnection,
    actor: &Actor,
    job: NewJob,
) -> Result<common::ExportJob, ServiceError> {
    fleetdesk_kit::export::scope::queue(tx, DOMAIN, actor, job).await
}

/// `worker` running every export kind of the crate too.
pub fn register(worker: ExportWorker) -> ExportWorker {
    worker
        .kind(reminders::export::KIND, reminders::export::RemindersExport)
        .kind(
            violations::export::KIND,
            violations::export::ViolationsExport,
        )
        .kind(
            inspections::export::KIND,
            inspections::export::InspectionsExport,
        )
        .kind(insurance::export::KIND, insurance::export::PoliciesExport)
        .kind(repairs::export::ORDERS, repairs::export::OrdersExport)
        .kind(repairs::export::RECORDS, repairs::export::RecordsExport)
        .kind(
            repairs::export::STATEMENTS,
            repairs::export::StatementsExport,
        )
        .kind(repairs::export::BILLS, repairs::export::BillsExport)
}
