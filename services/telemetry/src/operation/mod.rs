//! Operation logs (assetsReport › operationLog: dailyLog, monthlyLog): per
//! vehicle per Beijing day and per month — mileage, driving, idle and
//! online time, trips, top and average speed, first start and last stop,
//! alarms — kept up to date by ingest in the transaction of the fixes they
//! count (`store::add_fixes`; a late fix corrects its day and month), so a
//! list reads rows, never the history.
//!
//! `rollup` is the pure day (minute slots and odometer extremes, merged in
//! any order); `store` writes and lists; `handlers` and `convert` serve
//! TelemetryService's report and export RPCs; `export` writes both logs
//! as export kinds.
//!
//! Energy: charged energy and charge counts come from energy's settled
//! sessions through events (`charging`, once per event id, on the day the
//! charging ended); energy used is the state of charge's drop (the lowest
//! SOC of each minute slot, the falls between slots summed, rises being
//! charging) times the vehicle's battery capacity, unknown ("-") without a
//! SOC in the day's fixes or a capacity.

pub mod charging;
pub mod convert;
pub mod export;
pub mod handlers;
pub mod rollup;
pub mod store;

/// The permission of the operation logs.
pub const PERMISSION: &str = "oss:asset:report";
