//! The safety report (assetsReport › carSafetyReport): alarms per 100 km
//! by alarm type, overall and per organisation; a safety score per
//! vehicle, driver and organisation; rankings, a weekly trend and the
//! ranking as an xlsx export.
//!
//! Rules (`domain`):
//! - Mileage is the operation log's days (`operation_day`, per vehicle and
//!   Beijing day, kept by ingest); alarms are `risk_alarm` rows counted on
//!   their start's Beijing day. Nothing here reads the position history.
//! - A range is whole Beijing days, at most [`domain::MAX_DAYS`].
//! - score = max(0, 100 − Σ weight(type) × alarms(type) per 100 km), over
//!   the row's own mileage and alarms. Under [`domain::MIN_MILEAGE_M`] in
//!   the range (or, in the trend, in the week) a row has no score: a few
//!   kilometres would turn one alarm into a meaningless figure. Rankings
//!   list those rows after every scored one, in either order.
//! - Weights are per enterprise and alarm type (`safety_weight`, audited in
//!   `safety_weight_change`); a type without one uses
//!   [`domain::default_weight`]. Reading needs `oss:asset:report`, editing
//!   `as:alarm:rule` (the alarm rules' permission).
//! - Drivers: a day's driver is the vehicle's bound driver at the first
//!   ingest batch of that day that finds one (`operation::store` keeps it
//!   on the day row and never moves it). A driver's mileage is their days';
//!   an alarm counts for the driver of its vehicle's day, so alarms on a
//!   day without a driver count for the vehicle and organisation only.
//! - Organisations are the vehicles' current organisations; the reach and
//!   the organisation filter (with subtrees) apply to the vehicle.
//!
//! Depends on `alarms` (kinds, the rule permission) and `operation` (the
//! days and the report permission).

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;
