//! Maintenance reminders (保养提醒, carMaintenance): one open reminder per
//! vehicle and service plan (`crate::plans` opens them), when it falls due
//! and how urgent it is, and completing it.
//!
//! Rules (`domain`):
//! - A cycle falls due at its base + the plan's interval, by odometer and/or
//!   by date, **whichever comes first**. Its state is the most urgent of the
//!   odometer's and the calendar's: OVERDUE past the due reading or date,
//!   DUE exactly at it (a reading exactly at the interval is due, not
//!   "coming up"; so is the due day itself), UPCOMING within the plan's
//!   due-soon window (km before the reading, days before the date), else OK.
//! - The odometer is telemetry's (the newest fix), never a typed one, and
//!   the due date is forecast from the vehicle's real daily mileage (the
//!   operation log's last 30 days, `crate::odometer`): the day the average
//!   reaches the due reading, if sooner than the due date, is when it falls
//!   due, and within the window's days it is UPCOMING. A vehicle telemetry
//!   knows nothing of is judged by the calendar alone.
//! - Completing records the service (date, odometer, supplier, cost in fen,
//!   items, note) and opens the next cycle: **keep** the schedule (next due =
//!   previous due + interval) or **reset** it from the service (next due =
//!   the service's date and odometer + interval), the user's choice. The
//!   typed odometer must agree with telemetry around the service day within
//!   max(200 km, 2 %), may not be below the previous service's, nor above
//!   it by more than a plausible day's driving (1,500 km) a day where
//!   telemetry says nothing, so one mistyped reading is refused (naming
//!   `serviceOdometerM`). Typed readings only set their own cycle's base:
//!   the due states read telemetry's odometer, so no typo can make the
//!   vehicle's other reminders overdue. The date may be neither in the
//!   future nor before the previous service.
//! - Each reminder stores how it was last judged (`judge`): its state
//!   (`due_state`, DONE included), the key it is ordered by (`urgency`:
//!   the day it falls due; for DONE the day it was done, newest first), the
//!   day it falls due and the reading judged with. The list filters by
//!   them under the caller's reach and filters (plate, VIN, organisation,
//!   plan, kind) and pages in urgency order (state, then the day it falls
//!   due, then id) straight from `maintenance_reminder_urgency_idx`
//!   (`(enterprise_id, due_state, urgency, id)`; per organisation and per
//!   plan, its `org_` and `plan_` twins), its total a count over the same
//!   filter; what a row shows is re-derived from its stored reading, so it
//!   is what it was filtered and ordered by. A state is at most an hour
//!   behind the calendar and the odometer (the job re-judges hourly);
//!   the detail and a completion's answer are judged on the spot.
//!
//! Reads fleetdesk-assets' vehicles and telemetry's meters; writes only
//! this crate's tables.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod judge;
pub mod store;

pub use crate::plans::PERMISSION;
