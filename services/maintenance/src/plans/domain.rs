//! Plan stored codes, the checks of a plan and the due of a cycle. Pure:
//! no database, no proto messages.

use chrono::{Months, NaiveDate};
use fleetdesk_assets::vehicles::domain::Problems;
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// What a plan services (codes as MaintenanceKind).
    Kind => pb::MaintenanceKind {
        RoutineService = 1, TireRotation = 2, BrakeCheck = 3, BatteryCheck = 4,
        AirConditioning = 5, RefrigerationUnit = 6,
    }
);

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::RoutineService => "定期保养",
            Kind::TireRotation => "轮胎换位",
            Kind::BrakeCheck => "制动检查",
            Kind::BatteryCheck => "电池检测",
            Kind::AirConditioning => "空调保养",
            Kind::RefrigerationUnit => "冷机保养",
        }
    }
}

/// Longest interval a plan takes: 100,000 km, 10 years.
pub const MAX_INTERVAL_M: i64 = 100_000_000;
pub const MAX_INTERVAL_MONTHS: i32 = 120;
/// Longest due-soon window in days.
pub const MAX_SOON_DAYS: i32 = 365;
/// Most items a plan or a service lists, and the longest item.
pub const MAX_ITEMS: usize = 30;
pub const MAX_ITEM_CHARS: usize = 50;

/// How often a plan falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// Metres; 0 = by time only.
    pub m: i64,
    /// Months; 0 = by mileage only.
    pub months: i32,
}

/// How long before the due a reminder is due soon.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// Metres before the due reading; 0 = none.
    pub m: i64,
    /// Days before the due date (or the forecast one); 0 = none.
    pub days: i32,
}

/// When a cycle falls due: a reading and/or a Beijing day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Due {
    pub odometer_m: Option<i64>,
    pub date: Option<NaiveDate>,
}

/// Where a cycle counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base {
    pub date: NaiveDate,
    pub odometer_m: i64,
}

/// The due of a cycle counting from `base`: the interval past it, on each
/// side the plan has one. A month past the 31st is the month's last day.
pub fn due_after(interval: Interval, base: Base) -> Due {
    Due {
        odometer_m: (interval.m > 0).then(|| base.odometer_m + interval.m),
        date: u32::try_from(interval.months)
            .ok()
            .filter(|m| *m > 0)
            .and_then(|m| base.date.checked_add_months(Months::new(m))),
    }
}

/// A plan's input as it arrives, unchecked (proto-free).
#[derive(Debug, Clone, Default)]
pub struct PlanFields {
    pub org_id: String,
    pub name: String,
    pub kind: i32,
    pub vehicle_model: String,
    pub interval_m: i64,
    pub interval_months: i32,
    pub soon_m: i64,
    pub soon_days: i32,
    pub items: Vec<String>,
    pub remark: String,
}

/// A checked plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanDraft {
    pub org_id: Uuid,
    pub name: String,
    pub kind: Kind,
    pub vehicle_model: String,
    pub interval: Interval,
    pub window: Window,
    pub items: Vec<String>,
    pub remark: String,
}

/// Items trimmed, blank ones dropped, at most [`MAX_ITEMS`] of at most
/// [`MAX_ITEM_CHARS`] characters each.
pub fn items(problems: &mut Problems, field: &str, values: &[String]) -> Vec<String> {
    let items: Vec<String> = values
        .iter()
        .map(|i| i.trim().to_owned())
        .filter(|i| !i.is_empty())
        .collect();
    if items.len() > MAX_ITEMS {
        problems.add(field, format!("保养项目最多 {MAX_ITEMS} 项"));
    }
    if items.iter().any(|i| i.chars().count() > MAX_ITEM_CHARS) {
        problems.add(
            field,
            format!("每个保养项目不能超过 {MAX_ITEM_CHARS} 个字符"),
        );
    }
    items
}

impl PlanDraft {
    /// Every refusal at once, each naming its field.
    pub fn parse(f: &PlanFields) -> Result<PlanDraft, ServiceError> {
        let mut p = Problems::default();
        let org_id = p.org("orgId", &f.org_id);
        let name = p.text("name", "计划名称", &f.name, 50);
        let kind = p.choice("kind", "保养类型", Kind::from_pb(f.kind));
        let vehicle_model = p.optional_text("vehicleModel", "车型", &f.vehicle_model, 50);
        let interval_m = p.within("intervalM", "保养间隔里程", f.interval_m, 0, MAX_INTERVAL_M);
        let interval_months = p.within(
            "intervalMonths",
            "保养间隔月数",
            f.interval_months,
            0,
            MAX_INTERVAL_MONTHS,
        );
        if interval_m == 0 && interval_months == 0 {
            p.add("intervalM", "请设置保养间隔里程或间隔月数");
        }
        let soon_m = p.within("soonM", "提前提醒里程", f.soon_m, 0, MAX_INTERVAL_M);
        if soon_m > 0 && soon_m >= interval_m {
            p.add("soonM", "提前提醒里程须小于保养间隔里程");
        }
        let soon_days = p.within("soonDays", "提前提醒天数", f.soon_days, 0, MAX_SOON_DAYS);
        let items = items(&mut p, "items", &f.items);
        let remark = p.optional_text("remark", "备注", &f.remark, 500);
        p.finish()?;
        Ok(PlanDraft {
            org_id: org_id.expect("checked"),
            name,
            kind: kind.expect("checked"),
            vehicle_model,
            interval: Interval {
                m: interval_m,
                months: interval_months,
            },
            window: Window {
                m: soon_m,
                days: soon_days,
            },
            items,
            remark,
        })
    }
}

/// The refusal of a name another plan has.
pub fn name_taken() -> ServiceError {
    ServiceError::taken("name", "计划名称已存在")
}

#[cfg(test)]
mod tests {
    use fleetdesk_kit::ErrorCode;

    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn fields() -> PlanFields {
        PlanFields {
            org_id: Uuid::from_u128(1).to_string(),
            name: " 常规保养 ".into(),
            kind: pb::MaintenanceKind::RoutineService as i32,
            interval_m: 10_000_000,
            interval_months: 6,
            soon_m: 1_000_000,
            soon_days: 14,
            items: vec![" 机油 ".into(), "".into(), "机滤".into()],
            ..PlanFields::default()
        }
    }

    #[test]
    fn a_plan_is_trimmed_and_keeps_its_items_in_order() {
        let d = PlanDraft::parse(&fields()).unwrap();
        assert_eq!(d.name, "常规保养");
        assert_eq!(d.items, ["机油", "机滤"]);
        assert_eq!(
            d.interval,
            Interval {
                m: 10_000_000,
                months: 6
            }
        );
    }

    #[test]
    fn a_plan_needs_an_interval_and_a_window_shorter_than_it() {
        let e = PlanDraft::parse(&PlanFields {
            interval_m: 0,
            interval_months: 0,
            soon_m: 0,
            ..fields()
        })
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert_eq!(e.fields[0].field, "intervalM");
        let e = PlanDraft::parse(&PlanFields {
            soon_m: 10_000_000,
            ..fields()
        })
        .unwrap_err();
        assert_eq!(e.fields[0].field, "soonM");
    }

    #[test]
    fn the_due_is_the_interval_past_the_base_on_each_side_the_plan_has() {
        let base = Base {
            date: day(2026, 1, 31),
            odometer_m: 52_000_000,
        };
        let both = due_after(
            Interval {
                m: 10_000_000,
                months: 1,
            },
            base,
        );
        assert_eq!(both.odometer_m, Some(62_000_000));
        assert_eq!(both.date, Some(day(2026, 2, 28)));
        let by_time = due_after(Interval { m: 0, months: 12 }, base);
        assert_eq!(
            by_time,
            Due {
                odometer_m: None,
                date: Some(day(2027, 1, 31))
            }
        );
    }
}
