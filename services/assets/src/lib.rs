//! Vehicle assets, the subjects of AssetService: vehicle files, terminal
//! bindings, private cars, drivers, usage records and operation logs, with
//! their exports and imports (vehicles, drivers). The vehicle target
//! (fleetdesk-vehicle) serves them and owns their schema and migrations.
//!
//! Exports and imports run through kit::export and kit::import: `exports`
//! and `imports` hold what they share, each subject its own `export` (and
//! `import`) module.
//!
//! Subjects depend one way: usage, private cars, drivers and bindings read
//! vehicles, never the reverse (the binding log's rows are the vehicle's
//! `vehicles::binding_log`, since a vehicle created with a terminal opens
//! its first binding; the bindings page and bind/unbind build on it). Every writer records into `oplog` and the importers use
//! `imports`; neither reads a subject. The two handlers that read several
//! subjects sit above them: `oplog_list` (ListOperationLogs) and
//! `templates` (GetImportTemplate).

pub mod bindings;
mod codes;
pub mod context;
pub mod drivers;
pub mod exports;
pub mod imports;
pub mod oplog;
pub mod oplog_list;
pub mod private_cars;
pub mod templates;
pub mod usage;
pub mod vehicles;
