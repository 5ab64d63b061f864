//! Risk alarms (riskAlarmRecord): the enterprise's alarm rules, evaluated
//! on every fix in telemetry ingest's transaction, and the workflow an
//! operator works each alarm through.
//!
//! Rules (`domain::RuleKind`): overspeed (limit and minimum duration;
//! inside fences with their own speed limit the lowest of those wins),
//! fatigue (continuous driving over a limit without a rest of a set
//! length, and optionally a limit of driving per Beijing day: one alarm per
//! day), night driving (a Beijing-time window), fence window (entering or
//! leaving chosen fences, or any, inside a Beijing-time window that may
//! cross midnight: an instant alarm at the crossing, from the crossings
//! fence evaluation found), temperature (a probe outside its cold-chain
//! band for a minimum time: one alarm per excursion, ended back in range),
//! low state of charge (below a percentage for a minimum time), terminal
//! offline for N hours (`offline`: a periodic job opens it at last fix + N
//! hours, the next fix ends it) and the terminal's own 0x0200
//! alarm bits (`domain::terminal_bit_kind` maps each bit of JT/T 808-2019
//! table 24 to an alarm type: 0 emergency, 1 overspeed, 2 fatigue, 3 danger
//! warning, 4-7 and 9-12 module faults, 8 power cut, 26-28 theft, 29
//! collision, 30 rollover, 31 illegal door opening, the rest "other").
//! A rule applies to its organisation's subtree; changes are logged in
//! `alarm_rule_change` and apply to the fixes that arrive after them.
//!
//! Active-safety alarms (苏标 ADAS, DMS, tyres, blind spot) are always on,
//! with no rule: `active_safety` writes them in the same transaction, one
//! per terminal alarm identifier (`alarm_key`), condition
//! `domain::safety_condition`. An alarm's evidence (`evidence`) is the
//! photos and clips of `media` with its `alarm_key`, or, for the terminal
//! bits that take photos, the vehicle's 0x0800 photos of that event around
//! its start; the gateway signs their links.
//!
//! An alarm's key is (vehicle, rule, condition, start); `condition` is the
//! terminal bit (0-31) for terminal alarms and negative for the platform's:
//! -1 the rule's condition, -2 a fatigue rule's daily limit, -3/-4 fence
//! window entry/exit, -100 - probe for temperature.
//!
//! `engine` is the pure state machine (one alarm per condition, from start
//! to end), `evaluate` runs it in ingest and replays a vehicle's history
//! for late fixes (`tracks` keeps each vehicle's state in the process
//! between batches), and runs the fence-window and temperature rules over
//! what fence and temperature evaluation found in the same transaction.
//! The workflow: UNHANDLED → PROCESSING (assigned) → HANDLED or
//! FALSE_ALARM (a reason required), batch moves of up to 250, each logged in `risk_alarm_activity` with comments and evidence views.
//! Closing a terminal alarm the terminal holds until confirmed (emergency,
//! danger warning, ...) sends it 0x8203 through the device edge (`confirm`).
//! A level-3 alarm, once opened, asks org to notify the enterprise's risk
//! members once, with the rule's quiet period (`notify`).
//!
//! RPCs: `handlers` (validate → domain → store → response), `store`,
//! `convert`.

pub mod active_safety;
pub mod confirm;
pub mod convert;
pub mod domain;
pub mod engine;
pub mod evaluate;
pub mod evidence;
pub mod export;
pub mod handlers;
pub mod notify;
pub mod offline;
pub mod store;
pub mod tracks;

/// The permission of the alarm list and its workflow.
pub const PERMISSION: &str = "as:alarm";
/// The permission to change alarm rules.
pub const RULE_PERMISSION: &str = "as:alarm:rule";
