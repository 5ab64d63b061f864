//! When a reminder falls due and how urgent it is, the checks of a
//! completion and the next cycle's base. Pure: no database, no proto
//! messages.

use chrono::{DateTime, Days, Duration, NaiveDate, Utc};
use fleetdesk_assets::vehicles::domain::Problems;
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;
use crate::odometer::MAX_DAILY_M;
use crate::plans::domain::{Base, Due, Interval, Window, items};

stored_code!(
    /// How completing scheduled the next cycle (codes as MaintenanceSchedule).
    Schedule => pb::MaintenanceSchedule { Keep = 1, Reset = 2 }
);

impl Schedule {
    pub fn label(self) -> &'static str {
        match self {
            Schedule::Keep => "按原计划",
            Schedule::Reset => "从本次保养重新计算",
        }
    }
}

/// How urgent an open reminder is, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DueState {
    Overdue,
    Due,
    Upcoming,
    Ok,
}

impl DueState {
    pub fn pb(self) -> pb::MaintenanceReminderStatus {
        match self {
            DueState::Overdue => pb::MaintenanceReminderStatus::Overdue,
            DueState::Due => pb::MaintenanceReminderStatus::Due,
            DueState::Upcoming => pb::MaintenanceReminderStatus::Upcoming,
            DueState::Ok => pb::MaintenanceReminderStatus::Ok,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            DueState::Overdue => "已逾期",
            DueState::Due => "已到期",
            DueState::Upcoming => "即将到期",
            DueState::Ok => "正常",
        }
    }

    /// The stored rank in an export's page key.
    pub fn rank(self) -> i16 {
        match self {
            DueState::Overdue => 0,
            DueState::Due => 1,
            DueState::Upcoming => 2,
            DueState::Ok => 3,
        }
    }
}

/// What the vehicle's meters say today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub today: NaiveDate,
    /// The odometer by telemetry, metres.
    pub odometer_m: Option<i64>,
    /// The average daily mileage, metres.
    pub daily_m: Option<i64>,
}

/// How an open reminder stands today.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub state: DueState,
    /// Metres to the due reading (negative past it), when both are known.
    pub remaining_m: Option<i64>,
    /// The day it falls due: the due date or, sooner, the day the daily
    /// mileage reaches the due reading (today once reached).
    pub forecast: Option<NaiveDate>,
    /// Days to `forecast` (negative past it).
    pub remaining_days: Option<i64>,
    /// The state comes from the odometer rather than the calendar.
    pub by_mileage: bool,
}

fn side(remaining: i64, window: i64) -> DueState {
    match remaining {
        r if r < 0 => DueState::Overdue,
        0 => DueState::Due,
        r if window > 0 && r <= window => DueState::Upcoming,
        _ => DueState::Ok,
    }
}

/// How a cycle due at `due` stands with the plan's `window` and today's
/// `reading`: the odometer or the calendar, whichever is more urgent (the
/// odometer on a tie), the mileage forecast counting as the odometer's.
pub fn standing(due: Due, window: Window, reading: Reading) -> Standing {
    let remaining_m = due.odometer_m.zip(reading.odometer_m).map(|(d, c)| d - c);
    let meter = remaining_m.map(|r| side(r, window.m));
    let reached_on = remaining_m.and_then(|r| {
        if r <= 0 {
            Some(reading.today)
        } else {
            let daily = reading.daily_m.filter(|d| *d > 0)?;
            let days = u64::try_from((r + daily - 1) / daily).ok()?;
            reading.today.checked_add_days(Days::new(days))
        }
    });
    let forecast_state = reached_on
        .filter(|_| remaining_m.is_some_and(|r| r > 0))
        .map(|d| side((d - reading.today).num_days(), i64::from(window.days)))
        .map(|s| s.max(DueState::Upcoming));
    let calendar = due
        .date
        .map(|d| side((d - reading.today).num_days(), i64::from(window.days)));
    let by_meter = [meter, forecast_state].into_iter().flatten().min();
    let (state, by_mileage) = match (by_meter, calendar) {
        (Some(m), Some(c)) if m <= c => (m, true),
        (Some(_), Some(c)) => (c, false),
        (Some(m), None) => (m, true),
        (None, Some(c)) => (c, false),
        (None, None) => (DueState::Ok, false),
    };
    let forecast = [due.date, reached_on].into_iter().flatten().min();
    Standing {
        state,
        remaining_m,
        forecast,
        remaining_days: forecast.map(|f| (f - reading.today).num_days()),
        by_mileage,
    }
}

/// The order of a list: most urgent state, then soonest due, unknown last.
pub fn urgency(s: &Standing) -> (DueState, NaiveDate) {
    (s.state, s.forecast.unwrap_or(NaiveDate::MAX))
}

/// How far a typed odometer may be from telemetry's: 200 km or 2 % of the
/// reading, whichever is more (dashboards and terminals count apart).
pub fn margin(reading_m: i64) -> i64 {
    (reading_m / 50).max(200_000)
}

/// Most characters of a supplier's name and of the note.
const MAX_SUPPLIER_CHARS: usize = 100;
const MAX_REMARK_CHARS: usize = 500;
/// The most a service may cost: 10,000,000.00 yuan, in fen.
const MAX_COST_FEN: i64 = 1_000_000_000;
/// How far past the server's clock a service time may be (clock skew).
const FUTURE_SLACK_MINUTES: i64 = 5;

/// A completion as it arrives, unchecked (proto-free).
#[derive(Debug, Clone, Default)]
pub struct CompletionFields {
    pub service_time: Option<DateTime<Utc>>,
    pub service_odometer_m: i64,
    pub supplier: String,
    pub cost_fen: i64,
    pub items: Vec<String>,
    pub remark: String,
    pub repair_order_id: String,
    pub schedule: i32,
}

/// A checked completion (its odometer still to be checked against
/// telemetry with [`check_odometer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub service_time: DateTime<Utc>,
    pub odometer_m: i64,
    pub supplier: String,
    pub cost_fen: i64,
    /// Empty = the plan's.
    pub items: Vec<String>,
    pub remark: String,
    pub repair_order_id: String,
    pub schedule: Schedule,
}

impl Completion {
    /// Every refusal at once; `previous` is the last service's time, if any.
    pub fn parse(
        f: &CompletionFields,
        now: DateTime<Utc>,
        previous: Option<DateTime<Utc>>,
    ) -> Result<Completion, ServiceError> {
        let mut p = Problems::default();
        match f.service_time {
            None => p.add("serviceTime", "请选择保养日期"),
            Some(t) if t > now + Duration::minutes(FUTURE_SLACK_MINUTES) => {
                p.add("serviceTime", "保养日期不能晚于当前时间");
            }
            Some(t) if previous.is_some_and(|prev| t < prev) => {
                p.add("serviceTime", "保养日期不能早于上次保养日期");
            }
            Some(_) => {}
        }
        if f.service_odometer_m <= 0 {
            p.add("serviceOdometerM", "请输入保养时的里程");
        }
        let supplier = p.optional_text("supplier", "保养单位", &f.supplier, MAX_SUPPLIER_CHARS);
        let cost_fen = p.within("costFen", "保养费用", f.cost_fen, 0, MAX_COST_FEN);
        let items = items(&mut p, "items", &f.items);
        let remark = p.optional_text("remark", "备注", &f.remark, MAX_REMARK_CHARS);
        let repair_order_id = p.optional_text("repairOrderId", "维修工单", &f.repair_order_id, 64);
        let schedule = p.choice(
            "schedule",
            "下次保养的计算方式（按原计划或从本次保养重新计算）",
            Schedule::from_pb(f.schedule),
        );
        p.finish()?;
        Ok(Completion {
            service_time: f.service_time.expect("checked"),
            odometer_m: f.service_odometer_m,
            supplier,
            cost_fen,
            items,
            remark,
            repair_order_id,
            schedule: schedule.expect("checked"),
        })
    }
}

/// Kilometres as users read them (52,000.5 公里 → "52000.5").
fn km(m: i64) -> String {
    let whole = m / 1000;
    match (m % 1000).abs() / 100 {
        0 => whole.to_string(),
        tenth => format!("{whole}.{tenth}"),
    }
}

/// Refuses a typed odometer `entered` below the previous service's
/// (`previous`), or outside telemetry's `bounds` around the service day by
/// more than [`margin`]; the error names `serviceOdometerM` and says what
/// telemetry read.
pub fn check_odometer(
    entered: i64,
    previous: Option<i64>,
    bounds: (Option<i64>, Option<i64>),
) -> Result<(), ServiceError> {
    const FIELD: &str = "serviceOdometerM";
    if let Some(prev) = previous
        && entered < prev
    {
        return Err(ServiceError::invalid(
            FIELD,
            format!("保养里程不能小于上次保养时的里程（{} 公里）", km(prev)),
        ));
    }
    let (low, high) = bounds;
    let too_low = low.is_some_and(|lo| entered < lo - margin(lo));
    let too_high = high.is_some_and(|hi| entered > hi + margin(hi));
    if too_low || too_high {
        let said = match (low, high) {
            (Some(lo), Some(hi)) if hi - lo < 1000 => format!("约 {} 公里", km(lo)),
            (Some(lo), Some(hi)) => format!("{} 至 {} 公里", km(lo), km(hi)),
            (Some(lo), None) => format!("不低于 {} 公里", km(lo)),
            (None, Some(hi)) => format!("不高于 {} 公里", km(hi)),
            (None, None) => String::new(),
        };
        return Err(ServiceError::invalid(
            FIELD,
            format!("保养里程与车辆上报的里程不符（当日上报{said}），请核对后重新填写"),
        ));
    }
    Ok(())
}

/// Telemetry's bounds around the service day, with a ceiling where it
/// says nothing above: the previous service's odometer plus a plausible
/// day's driving ([`MAX_DAILY_M`]) for each day since, so a vehicle
/// without a terminal still refuses a reading with a digit too many.
pub fn bounds_with_previous(
    telemetry: (Option<i64>, Option<i64>),
    previous: Option<(NaiveDate, i64)>,
    service_day: NaiveDate,
) -> (Option<i64>, Option<i64>) {
    let (low, high) = telemetry;
    let ceiling = previous.map(|(day, m)| m + (service_day - day).num_days().max(1) * MAX_DAILY_M);
    (low, high.or(ceiling))
}

/// Where the next cycle counts from after a service at `service`: the
/// previous cycle's due, on each side it had one (keep), or the service
/// itself (reset).
pub fn next_base(schedule: Schedule, previous_due: Due, service: Base) -> Base {
    match schedule {
        Schedule::Keep => Base {
            date: previous_due.date.unwrap_or(service.date),
            odometer_m: previous_due.odometer_m.unwrap_or(service.odometer_m),
        },
        Schedule::Reset => service,
    }
}

/// The next cycle's due (the plan's interval past [`next_base`]).
pub fn next_due(
    schedule: Schedule,
    interval: Interval,
    previous_due: Due,
    service: Base,
) -> (Base, Due) {
    let base = next_base(schedule, previous_due, service);
    (base, crate::plans::domain::due_after(interval, base))
}

#[cfg(test)]
mod tests {
    use fleetdesk_kit::ErrorCode;

    use super::*;

    fn day(m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, m, d).unwrap()
    }

    const KM: i64 = 1000;

    fn window() -> Window {
        Window {
            m: 1000 * KM,
            days: 14,
        }
    }

    fn reading(odometer_km: i64, daily_km: Option<i64>) -> Reading {
        Reading {
            today: day(6, 1),
            odometer_m: Some(odometer_km * KM),
            daily_m: daily_km.map(|d| d * KM),
        }
    }

    fn due(km_at: i64, date: NaiveDate) -> Due {
        Due {
            odometer_m: Some(km_at * KM),
            date: Some(date),
        }
    }

    #[test]
    fn a_reading_exactly_at_the_interval_is_due_not_coming_up() {
        let s = standing(due(10_000, day(12, 1)), window(), reading(10_000, None));
        assert_eq!(s.state, DueState::Due);
        assert!(s.by_mileage);
        assert_eq!(s.remaining_m, Some(0));
    }

    #[test]
    fn the_due_day_itself_is_due_and_the_day_after_overdue() {
        let far = Reading {
            odometer_m: Some(0),
            ..reading(0, None)
        };
        assert_eq!(
            standing(due(10_000, day(6, 1)), window(), far).state,
            DueState::Due
        );
        assert_eq!(
            standing(due(10_000, day(5, 31)), window(), far).state,
            DueState::Overdue
        );
    }

    #[test]
    fn mileage_before_time_fires_on_mileage() {
        let s = standing(due(10_000, day(12, 1)), window(), reading(10_300, Some(50)));
        assert_eq!(s.state, DueState::Overdue);
        assert!(s.by_mileage);
        assert_eq!(s.forecast, Some(day(6, 1)));
    }

    #[test]
    fn time_before_mileage_fires_on_time() {
        let s = standing(due(10_000, day(6, 10)), window(), reading(2_000, Some(10)));
        assert_eq!(s.state, DueState::Upcoming);
        assert!(!s.by_mileage);
        assert_eq!(s.remaining_days, Some(9));
    }

    #[test]
    fn the_due_soon_window_is_the_plans_in_km_and_days() {
        let w = Window {
            m: 5000 * KM,
            days: 0,
        };
        let s = standing(due(100_000, day(12, 1)), w, reading(95_000, None));
        assert_eq!(s.state, DueState::Upcoming);
        let s = standing(due(100_000, day(12, 1)), w, reading(94_999, None));
        assert_eq!(s.state, DueState::Ok);
    }

    #[test]
    fn the_forecast_follows_the_daily_mileage() {
        // 3,000 km to go at 500 km a day: 6 days, inside a 14-day window.
        let truck = standing(
            due(13_000, day(12, 1)),
            window(),
            reading(10_000, Some(500)),
        );
        assert_eq!(truck.forecast, Some(day(6, 7)));
        assert_eq!(truck.state, DueState::Upcoming);
        assert!(truck.by_mileage);
        // The same distance at 20 km a day: 150 days, not due soon.
        let van = standing(due(13_000, day(12, 1)), window(), reading(10_000, Some(20)));
        assert_eq!(van.forecast, Some(day(10, 29)));
        assert_eq!(van.state, DueState::Ok);
    }

    #[test]
    fn without_telemetry_the_calendar_decides() {
        let r = Reading {
            today: day(6, 1),
            odometer_m: None,
            daily_m: None,
        };
        let s = standing(due(10_000, day(6, 20)), window(), r);
        assert_eq!(s.state, DueState::Ok);
        assert_eq!(s.remaining_m, None);
        assert_eq!(s.forecast, Some(day(6, 20)));
    }

    #[test]
    fn urgency_orders_state_then_soonest() {
        let w = window();
        let overdue = standing(due(1_000, day(12, 1)), w, reading(2_000, None));
        let soon = standing(due(100_000, day(6, 5)), w, reading(0, None));
        let later = standing(due(100_000, day(6, 9)), w, reading(0, None));
        let mut all = [later, soon, overdue];
        all.sort_by_key(urgency);
        assert_eq!(all, [overdue, soon, later]);
    }

    #[test]
    fn keep_counts_from_the_previous_due_and_reset_from_the_service() {
        let interval = Interval {
            m: 10_000 * KM,
            months: 6,
        };
        let previous = due(20_000, day(7, 1));
        let service = Base {
            date: day(6, 1),
            odometer_m: 19_000 * KM,
        };
        let (_, keep) = next_due(Schedule::Keep, interval, previous, service);
        let next_year = NaiveDate::from_ymd_opt(2027, 1, 1).unwrap();
        assert_eq!(keep, due(30_000, next_year));
        let (_, reset) = next_due(Schedule::Reset, interval, previous, service);
        assert_eq!(reset, due(29_000, day(12, 1)));
    }

    #[test]
    fn an_odometer_far_from_telemetry_is_refused_naming_the_field() {
        let bounds = (Some(52_000 * KM), Some(52_100 * KM));
        assert!(check_odometer(52_150 * KM, None, bounds).is_ok());
        assert!(check_odometer(51_900 * KM, None, bounds).is_ok());
        let e = check_odometer(520_000 * KM, None, bounds).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert_eq!(e.fields[0].field, "serviceOdometerM");
        assert!(e.message.contains("52000 至 52100 公里"), "{}", e.message);
        let e = check_odometer(10_000 * KM, Some(12_000 * KM), (None, None)).unwrap_err();
        assert!(e.message.contains("12000 公里"), "{}", e.message);
    }

    #[test]
    fn without_telemetry_the_previous_service_bounds_the_reading_from_above() {
        let previous = Some((day(5, 1), 40_000 * KM));
        let bounds = bounds_with_previous((None, None), previous, day(5, 11));
        assert_eq!(bounds, (None, Some(40_000 * KM + 10 * MAX_DAILY_M)));
        assert!(check_odometer(48_000 * KM, Some(40_000 * KM), bounds).is_ok());
        let e = check_odometer(480_000 * KM, Some(40_000 * KM), bounds).unwrap_err();
        assert_eq!(e.fields[0].field, "serviceOdometerM");
        // Telemetry's own ceiling wins where it has one.
        let told = bounds_with_previous((Some(1), Some(2)), previous, day(5, 11));
        assert_eq!(told, (Some(1), Some(2)));
    }

    #[test]
    fn a_completion_needs_a_schedule_choice_and_a_past_date() {
        let now = Utc::now();
        let fields = CompletionFields {
            service_time: Some(now + Duration::days(1)),
            service_odometer_m: 0,
            cost_fen: -1,
            ..CompletionFields::default()
        };
        let e = Completion::parse(&fields, now, None).unwrap_err();
        let named: Vec<&str> = e.fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(
            named,
            ["serviceTime", "serviceOdometerM", "costFen", "schedule"]
        );
    }
}
