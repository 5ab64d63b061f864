//! The vehicle target's export worker: every export kind of the crates it
//! hosts (fleetdesk-assets, fleetdesk-telemetry and fleetdesk-maintenance), under the one export
//! domain they queue their jobs in (`fleetdesk_assets::exports::DOMAIN`).

use fleetdesk_assets::{bindings, drivers, private_cars, usage, vehicles};
use fleetdesk_kit::export::ExportWorker;
use fleetdesk_kit::files::FileStore;
use fleetdesk_telemetry::{alarms, geofences, operation, positions, safety, temperature};
use sqlx_postgres::PgPool;

pub use fleetdesk_assets::exports::DOMAIN;

/// The worker that runs every export kind of this target.
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
        .kind(positions::export::KIND, positions::export::TrackExport)
        .kind(
            temperature::export::KIND,
            temperature::export::TemperatureAlarmsExport,
        )
        .kind(safety::export::KIND, safety::export::SafetyRankingExport)
        .kind(alarms::export::KIND, alarms::export::AlarmsExport)
        .kind(
            operation::export::DAILY_KIND,
            operation::export::LogsExport::<operation::export::Daily>::new(),
        )
        .kind(
            operation::export::MONTHLY_KIND,
            operation::export::LogsExport::<operation::export::Monthly>::new(),
        );
    for (name, kind) in usage::export::kinds() {
        worker = worker.kind(name, kind);
    }
    fleetdesk_maintenance::exports::register(worker)
}
