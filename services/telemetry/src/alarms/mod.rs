//! Risk alarms (riskAlarmRecord): the enterprise's alarm rules, evaluated
//! on every fix in telemetry ingest's transaction, and the workflow an
//! operator works each alarm through.
//!
//! Rules (`domain::RuleKind`): overspeed (limit and minimum duration),
//! fatigue (continuous driving over a limit without a rest of a set
//! length), night driving (a Beijing-time window), low state of charge
//! (below a percentage for a minimum time) and the terminal's own 0x0200
//! alarm bits (`domain::terminal_bit_kind` maps each bit of JT/T 808-2019
//! table 24 to an alarm type: 0 emergency, 1 overspeed, 2 fatigue, 3 danger
//! warning, 4-7 and 9-12 module faults, 8 power cut, 26-28 theft, 29
//! collision, 30 rollover, 31 illegal door opening, the rest "other").
//! A rule applies to its organisation's subtree; changes are logged in
//! `alarm_rule_change` and apply to the fixes that arrive after them.
//!
//! `engine` is the pure state machine (one alarm per condition, from start
//! to end), `evaluate` runs it in ingest and replays a vehicle's history
//! for late fixes. The workflow: UNHANDLED → PROCESSING (assigned) →
//! HANDLED or FALSE_ALARM (a reason required), batch moves of up to 250,
//! each logged in `risk_alarm_activity` with comments and evidence views.
//! Closing a terminal alarm the terminal holds until confirmed (emergency,
//! danger warning, ...) sends it 0x8203 through the device edge (`confirm`).
//!
//! RPCs: `handlers` (validate → domain → store → response), `store`,
//! `convert`.

pub mod confirm;
pub mod convert;
pub mod domain;
pub mod engine;
pub mod evaluate;
pub mod handlers;
pub mod store;

/// The permission of the alarm list and its workflow.
pub const PERMISSION: &str = "as:alarm";
/// The permission to change alarm rules.
pub const RULE_PERMISSION: &str = "as:alarm:rule";
