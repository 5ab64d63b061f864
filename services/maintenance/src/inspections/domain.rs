//! The inspection rules: which legal schedule a vehicle follows, when its
//! next inspection falls due, its due state, and what a record must hold.
//! Pure: no database. Days are Beijing days.

use chrono::{Datelike, Months, NaiveDate};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// The schedule of 道路交通安全法实施条例 第十六条 (with the 2022 reform)
    /// a vehicle follows.
    Class => pb::InspectionClass {
        Goods = 1,
        OperatingPassenger = 2,
        LargePassenger = 3,
        SmallPassenger = 4,
    }
);

stored_code!(
    /// What an inspection found.
    Outcome => pb::InspectionResult {
        Passed = 1,
        Failed = 2,
    }
);

/// Days before the due date a vehicle counts as due soon.
pub const DUE_SOON_DAYS: i64 = 30;

/// VehicleCategory's passenger car: the only body of ours that carries people.
const PASSENGER_CAR: i16 = pb::VehicleCategory::PassengerCar as i16;

impl Class {
    /// The class a vehicle opens with. Our vehicle row has no use nature
    /// (营运/非营运): a passenger car is taken for a small non-operating one,
    /// every other body is a goods vehicle; a record may name another class.
    pub fn of_category(category: i16) -> Class {
        if category == PASSENGER_CAR {
            Class::SmallPassenger
        } else {
            Class::Goods
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Class::Goods => "载货汽车",
            Class::OperatingPassenger => "营运载客汽车",
            Class::LargePassenger => "大中型非营运载客汽车",
            Class::SmallPassenger => "小微型非营运载客汽车",
        }
    }

    /// Months between inspections at `age` months from registration.
    fn cadence(self, age: u32) -> u32 {
        match self {
            Class::Goods | Class::LargePassenger if age < 120 => 12,
            Class::OperatingPassenger if age < 60 => 12,
            Class::Goods | Class::LargePassenger | Class::OperatingPassenger => 6,
            // Exempt to year 6, then years 6 and 10 on the line with a sticker
            // at 8: every 2 years to 10.
            Class::SmallPassenger if age < 120 => 24,
            Class::SmallPassenger if age < 180 => 12,
            Class::SmallPassenger => 6,
        }
    }

    /// Ages (months) at which the cadence shortens.
    fn boundaries(self) -> &'static [u32] {
        match self {
            Class::Goods | Class::LargePassenger => &[120],
            Class::OperatingPassenger => &[60],
            Class::SmallPassenger => &[120, 180],
        }
    }

    /// The first inspection after registration.
    fn first_due_months(self) -> u32 {
        match self {
            Class::SmallPassenger => 72,
            Class::Goods | Class::LargePassenger | Class::OperatingPassenger => 12,
        }
    }
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Passed => "合格",
            Outcome::Failed => "不合格",
        }
    }
}

fn plus_months(day: NaiveDate, months: u32) -> NaiveDate {
    day.checked_add_months(Months::new(months))
        .unwrap_or(NaiveDate::MAX)
}

/// Whole months from `from` to `to` (0 when `to` is earlier).
fn months_between(from: NaiveDate, to: NaiveDate) -> u32 {
    let months = (to.year() - from.year()) * 12 + to.month() as i32
        - from.month() as i32
        - i32::from(to.day() < from.day());
    u32::try_from(months).unwrap_or(0)
}

/// When the next inspection falls due after a passed one on `inspected`:
/// its date plus the cadence at the vehicle's age then; a period that runs
/// into a shorter cadence ends at that boundary, or one shorter cadence
/// after the inspection, whichever is later. A small passenger car is never
/// due before year 6. An unknown registration counts as new.
pub fn next_due(class: Class, registered: Option<NaiveDate>, inspected: NaiveDate) -> NaiveDate {
    let registered = registered.unwrap_or(inspected);
    let age = months_between(registered, inspected);
    let mut due = plus_months(inspected, class.cadence(age));
    for months in class.boundaries() {
        let boundary = plus_months(registered, *months);
        if inspected < boundary && boundary < due {
            due = boundary.max(plus_months(inspected, class.cadence(*months)));
        }
    }
    due.max(plus_months(registered, class.first_due_months()))
}

/// The due date of a vehicle nothing was recorded for: the licence's stamp
/// when known; else, from its registration, the first date of the schedule
/// on or after `today` (its inspections before it came to us are taken as
/// done; recording or importing them corrects it); `None` when neither is known.
pub fn first_due(
    class: Class,
    registered: Option<NaiveDate>,
    stamp: Option<NaiveDate>,
    today: NaiveDate,
) -> Option<NaiveDate> {
    if stamp.is_some() {
        return stamp;
    }
    let registered = registered?;
    let mut due = plus_months(registered, class.first_due_months());
    while due < today {
        due = next_due(class, Some(registered), due);
    }
    Some(due)
}

/// Where a vehicle stands on `today`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Valid,
    DueSoon,
    Overdue,
}

impl Standing {
    /// From the due date; an unknown one is valid (nothing known is due).
    pub fn of(due: Option<NaiveDate>, today: NaiveDate) -> Standing {
        match due {
            Some(due) if due < today => Standing::Overdue,
            Some(due) if (due - today).num_days() <= DUE_SOON_DAYS => Standing::DueSoon,
            Some(_) | None => Standing::Valid,
        }
    }

    pub fn to_pb(self) -> pb::InspectionStatus {
        match self {
            Standing::Valid => pb::InspectionStatus::Valid,
            Standing::DueSoon => pb::InspectionStatus::DueSoon,
            Standing::Overdue => pb::InspectionStatus::Overdue,
        }
    }

    pub fn from_pb(value: i32) -> Option<Standing> {
        match pb::InspectionStatus::try_from(value).ok()? {
            pb::InspectionStatus::Valid => Some(Standing::Valid),
            pb::InspectionStatus::DueSoon => Some(Standing::DueSoon),
            pb::InspectionStatus::Overdue => Some(Standing::Overdue),
            pb::InspectionStatus::Unspecified => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Standing::Valid => "有效",
            Standing::DueSoon => "即将到期",
            Standing::Overdue => "已逾期",
        }
    }
}

/// Longest station name and remark.
const STATION_MAX: usize = 64;
const REMARK_MAX: usize = 200;
/// Largest plausible odometer (10 million km) and fee (10,000 yuan).
const ODOMETER_MAX_M: i64 = 10_000_000_000;
const COST_MAX_FEN: i64 = 1_000_000;

/// One inspection as an operator or a file gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    pub inspected: NaiveDate,
    pub outcome: Outcome,
    pub station: String,
    pub odometer_m: i64,
    pub cost_fen: i64,
    /// The licence's new stamp, when given (a passed one only).
    pub stamp: Option<NaiveDate>,
    pub remark: String,
}

impl Inspection {
    /// Checks a record against `today` and the vehicle's registration, each
    /// problem naming its field (the import's columns read these names).
    pub fn check(
        mut self,
        today: NaiveDate,
        registered: Option<NaiveDate>,
    ) -> Result<Inspection, ServiceError> {
        self.station = self.station.trim().to_owned();
        self.remark = self.remark.trim().to_owned();
        if self.inspected > today {
            return Err(ServiceError::invalid(
                "inspectionTime",
                "检验日期不能晚于今天",
            ));
        }
        if registered.is_some_and(|r| self.inspected < r) {
            return Err(ServiceError::invalid(
                "inspectionTime",
                "检验日期不能早于车辆注册日期",
            ));
        }
        if self.station.chars().count() > STATION_MAX {
            return Err(ServiceError::invalid(
                "stationName",
                "检验机构不能超过64个字",
            ));
        }
        if !(0..=ODOMETER_MAX_M).contains(&self.odometer_m) {
            return Err(ServiceError::invalid(
                "odometerM",
                "里程应在0至1000万公里之间",
            ));
        }
        if !(0..=COST_MAX_FEN).contains(&self.cost_fen) {
            return Err(ServiceError::invalid(
                "costFen",
                "检验费用应在0至10000元之间",
            ));
        }
        if self.remark.chars().count() > REMARK_MAX {
            return Err(ServiceError::invalid("remark", "备注不能超过200个字"));
        }
        if self.outcome == Outcome::Failed {
            self.stamp = None;
        }
        if let Some(stamp) = self.stamp
            && (stamp <= self.inspected || stamp > plus_months(self.inspected, 24))
        {
            return Err(ServiceError::invalid(
                "expireTime",
                "检验有效期应在检验日期之后两年以内",
            ));
        }
        Ok(self)
    }

    /// The due date after this record: a passed one's stamp or the
    /// schedule's next date; a failed one keeps `current`.
    pub fn due_after(
        &self,
        class: Class,
        registered: Option<NaiveDate>,
        current: Option<NaiveDate>,
    ) -> Option<NaiveDate> {
        match self.outcome {
            Outcome::Passed => Some(
                self.stamp
                    .unwrap_or_else(|| next_due(class, registered, self.inspected)),
            ),
            Outcome::Failed => current,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn goods_vehicles_are_yearly_within_ten_years_then_half_yearly() {
        let reg = Some(day(2020, 3, 15));
        assert_eq!(
            next_due(Class::Goods, reg, day(2026, 3, 10)),
            day(2027, 3, 10)
        );
        // Ending in the eleventh year: the period stops at the tenth anniversary.
        assert_eq!(
            next_due(Class::Goods, reg, day(2029, 6, 1)),
            day(2030, 3, 15)
        );
        assert_eq!(
            next_due(Class::Goods, reg, day(2030, 3, 20)),
            day(2030, 9, 20)
        );
        // Late in the tenth year: six months on, past the boundary.
        assert_eq!(
            next_due(Class::Goods, reg, day(2030, 1, 1)),
            day(2030, 7, 1)
        );
        assert_eq!(
            next_due(Class::LargePassenger, reg, day(2026, 3, 10)),
            day(2027, 3, 10)
        );
    }

    #[test]
    fn operating_passenger_vehicles_go_half_yearly_after_five_years() {
        let reg = Some(day(2020, 1, 1));
        assert_eq!(
            next_due(Class::OperatingPassenger, reg, day(2024, 1, 1)),
            day(2025, 1, 1)
        );
        assert_eq!(
            next_due(Class::OperatingPassenger, reg, day(2025, 1, 1)),
            day(2025, 7, 1)
        );
    }

    #[test]
    fn small_passenger_cars_are_exempt_six_years_then_two_yearly_to_ten() {
        let reg = Some(day(2016, 5, 1));
        let class = Class::SmallPassenger;
        assert_eq!(
            first_due(class, reg, None, day(2016, 6, 1)),
            Some(day(2022, 5, 1))
        );
        assert_eq!(next_due(class, reg, day(2022, 5, 1)), day(2024, 5, 1));
        assert_eq!(next_due(class, reg, day(2024, 5, 1)), day(2026, 5, 1));
        assert_eq!(next_due(class, reg, day(2026, 5, 1)), day(2027, 5, 1));
        assert_eq!(next_due(class, reg, day(2031, 5, 1)), day(2031, 11, 1));
        // A voluntary inspection in the exempt years does not bring year 6 forward.
        assert_eq!(next_due(class, reg, day(2018, 1, 1)), day(2022, 5, 1));
    }

    #[test]
    fn without_a_record_the_stamp_or_the_schedule_from_registration_decides() {
        let reg = Some(day(2024, 12, 20));
        let today = day(2026, 11, 29);
        assert_eq!(
            first_due(Class::Goods, reg, None, today),
            Some(day(2026, 12, 20))
        );
        assert_eq!(
            first_due(Class::Goods, reg, Some(day(2026, 1, 1)), today),
            Some(day(2026, 1, 1))
        );
        assert_eq!(first_due(Class::Goods, None, None, today), None);
    }

    #[test]
    fn due_soon_is_thirty_days_and_overdue_starts_the_day_after() {
        let today = day(2026, 11, 29);
        assert_eq!(Standing::of(Some(today), today), Standing::DueSoon);
        assert_eq!(
            Standing::of(Some(day(2026, 12, 29)), today),
            Standing::DueSoon
        );
        assert_eq!(
            Standing::of(Some(day(2026, 12, 30)), today),
            Standing::Valid
        );
        assert_eq!(
            Standing::of(Some(day(2026, 11, 28)), today),
            Standing::Overdue
        );
        assert_eq!(Standing::of(None, today), Standing::Valid);
        for s in [Standing::Valid, Standing::DueSoon, Standing::Overdue] {
            assert_eq!(Standing::from_pb(s.to_pb() as i32), Some(s));
        }
    }

    fn inspection(outcome: Outcome) -> Inspection {
        Inspection {
            inspected: day(2026, 11, 1),
            outcome,
            station: " 深圳市安车检测站 ".into(),
            odometer_m: 120_000_000,
            cost_fen: 39_000,
            stamp: None,
            remark: String::new(),
        }
    }

    #[test]
    fn a_failed_inspection_keeps_the_due_date_and_a_passed_one_moves_it() {
        let reg = Some(day(2022, 11, 20));
        let current = Some(day(2026, 11, 20));
        let passed = inspection(Outcome::Passed);
        assert_eq!(
            passed.due_after(Class::Goods, reg, current),
            Some(day(2027, 11, 1))
        );
        let failed = inspection(Outcome::Failed);
        assert_eq!(failed.due_after(Class::Goods, reg, current), current);
        let stamped = Inspection {
            stamp: Some(day(2027, 11, 30)),
            ..inspection(Outcome::Passed)
        };
        assert_eq!(
            stamped.due_after(Class::Goods, reg, current),
            Some(day(2027, 11, 30))
        );
    }

    #[test]
    fn a_record_names_the_field_it_fails_on() {
        let today = day(2026, 11, 29);
        let reg = Some(day(2022, 11, 20));
        let checked = inspection(Outcome::Passed).check(today, reg).unwrap();
        assert_eq!(checked.station, "深圳市安车检测站");
        let field = |i: Inspection| i.check(today, reg).unwrap_err().fields[0].field.clone();
        assert_eq!(
            field(Inspection {
                inspected: day(2026, 12, 1),
                ..inspection(Outcome::Passed)
            }),
            "inspectionTime"
        );
        assert_eq!(
            field(Inspection {
                inspected: day(2020, 1, 1),
                ..inspection(Outcome::Passed)
            }),
            "inspectionTime"
        );
        assert_eq!(
            field(Inspection {
                cost_fen: -1,
                ..inspection(Outcome::Passed)
            }),
            "costFen"
        );
        assert_eq!(
            field(Inspection {
                stamp: Some(day(2026, 10, 1)),
                ..inspection(Outcome::Passed)
            }),
            "expireTime"
        );
    }

    #[test]
    fn classes_open_from_the_body_and_round_trip() {
        assert_eq!(Class::of_category(PASSENGER_CAR), Class::SmallPassenger);
        assert_eq!(
            Class::of_category(pb::VehicleCategory::HeavyTruck as i16),
            Class::Goods
        );
        for c in Class::ALL {
            assert_eq!(Class::from_pb(c.pb()), Some(*c));
        }
    }
}
