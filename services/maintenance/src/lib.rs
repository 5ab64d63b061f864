//! Vehicle management, the MaintenanceService subjects (console spec §2
//! `vehicleManagement`): today service plans and maintenance reminders
//! (`carMaintenance`); traffic violations, annual inspections, repair
//! orders with their statements and bills, and insurance policies come as
//! their own subjects beside them (issue 23), each in its own folder. The
//! vehicle target (fleetdesk-vehicle) serves them and owns their schema and
//! migrations (`services/vehicle/migrations/`); RPCs of subjects not built
//! yet are listed in its `grpc::not_built`.
//!
//! It reads the vehicle assets of fleetdesk-assets (the vehicle a plan
//! covers or a reminder is about, the organisation subtrees of a filter)
//! and never writes their tables; assets never read this crate. Of the
//! telemetry it reads, through SQL in the same schema, only the odometer of
//! the latest position and the daily rows of the operation log
//! (`operation_day`): see [`odometer`].
//!
//! Subjects depend one way, in this order: `odometer` (what telemetry says
//! a vehicle's odometer is and was, its daily mileage) → `plans` (service
//! plans and the reminders they open) → `reminders` (due states, the list,
//! completing a service); none reads a later one, but for the maintenance
//! job (`plans::job`, the path the target starts it by), whose round syncs
//! the plans daily and has `reminders::judge` re-judge the stored due
//! states hourly. `violations` (traffic violations) reads only the
//! assets' vehicles, drivers, bindings and usage records, none of the
//! subjects before it; its fetch job (`violations::job`) calls the traffic
//! authority. `insurance` (insurance policies) reads only the assets'
//! vehicles and borrows `violations`' plate lookup.
//! `inspections` (annual inspections) reads only the assets' vehicles.
//!
//! `repairs` (repair orders from quote to bill) reads the assets' vehicles
//! and drivers and the violations' driver look-up; its approval consumer
//! (`repairs::approval`, started by the target) takes org's decisions.
//!
//! `due` (its daily job started by the target) reads reminders,
//! inspections and policies and asks risk for warnings of what falls due,
//! through the outbox (`vehicle.v1.WarningRequested`).
//!
//! Layout: each subject is a folder with `handlers` (validate → domain →
//! store → response), `domain` (pure rules, stored codes), `store` (its
//! queries), `convert` (proto ↔ domain) and, for a list with an export,
//! `export`; handlers take their request context from `context`;
//! `exports` lists the export kinds the target's worker runs.

mod codes;
pub mod context;
pub mod due;
pub mod exports;
mod filters;
pub mod inspections;
pub mod insurance;
pub mod odometer;
pub mod oplog;
pub mod plans;
pub mod plates;
pub mod reminders;
pub mod repairs;
pub mod violations;
