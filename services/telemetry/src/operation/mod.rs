//! Operation logs (assetsReport › operationLog: dailyLog, monthlyLog): per
//! vehicle per Beijing day and per month — mileage, driving, idle and
//! online time, trips, top and average speed, first start and last stop,
//! alarms — kept up to date by ingest in the transaction of the fixes they
//! count (`store::add_fixes`; a late fix corrects its day and month), so a
//! list reads rows, never the history.
//!
//! `rollup` is the pure day (minute slots and odometer extremes, merged in
//! any order); `store` writes and lists; `handlers` and `convert` serve
//! TelemetryService's two report RPCs. Energy used and charged and charge
//! counts are not counted yet (they come from energy's sessions).

pub mod convert;
pub mod handlers;
pub mod rollup;
pub mod store;

/// The permission of the operation logs.
pub const PERMISSION: &str = "oss:asset:report";
