//! A vehicle's day as the operation log counts it, built from its fixes in
//! any order. Pure.
//!
//! The day (Beijing time) is 1,440 minute slots; a fix marks its slot
//! online, and moving when it moves. Mileage is the odometer's spread over
//! the day, the top speed the highest fix. Every part is a union, a minimum
//! or a maximum, so a late or repeated fix gives the same day as an
//! in-order one, and a day can always be recomputed from the history alone.
//!
//! The state of charge is kept the same way: the lowest SOC of each minute
//! slot ([`SocSlots`]); the day's drop is the sum of the falls between
//! consecutive slots with a reading (a rise is charging and counts nothing),
//! which the log multiplies by the battery's capacity as energy used.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeZone, Timelike, Utc};

use crate::alarms::engine::MOVING_DKMH;

/// Minute slots of a day.
pub const SLOTS: usize = 1_440;
const BYTES: usize = SLOTS / 8;
/// Silent slots between two online ones still count as online (a parked
/// terminal reports every few minutes).
const ONLINE_GAP: usize = 10;
/// A silent minute between moving ones is still driving (reports 30-60 s apart).
const MOVING_GAP: usize = 1;
/// A stop shorter than this is the same trip.
const TRIP_GAP: usize = 5;

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// The Beijing day of a fix and its minute slot.
pub fn slot_of(time: DateTime<Utc>) -> (NaiveDate, usize) {
    let local = time.with_timezone(&beijing());
    (
        local.date_naive(),
        (local.hour() * 60 + local.minute()) as usize,
    )
}

/// The instant a day's `slot` begins.
pub fn slot_start(day: NaiveDate, slot: usize) -> DateTime<Utc> {
    let minutes = u32::try_from(slot.min(SLOTS)).unwrap_or(0);
    let midnight = beijing()
        .from_local_datetime(&day.and_time(NaiveTime::MIN))
        .single()
        .expect("UTC+8 has no gaps");
    (midnight + chrono::Duration::minutes(i64::from(minutes))).with_timezone(&Utc)
}

/// One bit per minute slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slots(Vec<u8>);

impl Default for Slots {
    fn default() -> Slots {
        Slots(vec![0; BYTES])
    }
}

impl Slots {
    /// From stored bytes (a short or missing value is an empty day).
    pub fn from_bytes(bytes: &[u8]) -> Slots {
        let mut s = Slots::default();
        for (i, b) in bytes.iter().take(BYTES).enumerate() {
            s.0[i] = *b;
        }
        s
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn set(&mut self, slot: usize) {
        if slot < SLOTS {
            self.0[slot / 8] |= 1 << (slot % 8);
        }
    }

    pub fn get(&self, slot: usize) -> bool {
        slot < SLOTS && self.0[slot / 8] & (1 << (slot % 8)) != 0
    }

    pub fn union(&mut self, other: &Slots) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    /// The slots set, with silent stretches of at most `gap` between two
    /// set slots filled.
    fn filled(&self, gap: usize) -> Vec<bool> {
        let mut out: Vec<bool> = (0..SLOTS).map(|i| self.get(i)).collect();
        let mut last: Option<usize> = None;
        for i in 0..SLOTS {
            if out[i] {
                if let Some(l) = last
                    && i - l > 1
                    && i - l - 1 <= gap
                {
                    out[(l + 1)..i].iter_mut().for_each(|s| *s = true);
                }
                last = Some(i);
            }
        }
        out
    }
}

/// No SOC reading in a minute slot.
const NO_SOC: u8 = u8::MAX;

/// The lowest state of charge (percent) seen in each minute slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocSlots(Vec<u8>);

impl Default for SocSlots {
    fn default() -> SocSlots {
        SocSlots(vec![NO_SOC; SLOTS])
    }
}

impl SocSlots {
    /// From stored bytes (a short or missing value has no readings).
    pub fn from_bytes(bytes: Option<&[u8]>) -> SocSlots {
        let mut s = SocSlots::default();
        for (i, b) in bytes.unwrap_or_default().iter().take(SLOTS).enumerate() {
            s.0[i] = *b;
        }
        s
    }

    /// The stored bytes; `None` for a day without a reading.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        self.0.iter().any(|b| *b != NO_SOC).then(|| self.0.clone())
    }

    /// Counts a reading of `soc` percent in `slot` (out-of-range readings are dropped).
    pub fn set(&mut self, slot: usize, soc: i16) {
        if slot < SLOTS
            && let Ok(soc) = u8::try_from(soc)
            && soc <= 100
        {
            self.0[slot] = self.0[slot].min(soc);
        }
    }

    pub fn merge(&mut self, other: &SocSlots) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).min(*b);
        }
    }

    /// Percentage points the SOC fell over the day; `None` without a reading.
    pub fn drop_pct(&self) -> Option<i32> {
        let mut readings = self.0.iter().filter(|b| **b != NO_SOC);
        let mut last = *readings.next()?;
        let mut fallen = 0;
        for soc in readings {
            fallen += i32::from(last.saturating_sub(*soc));
            last = *soc;
        }
        Some(fallen)
    }
}

/// What one day's fixes add up to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Day {
    pub moving: Slots,
    pub online: Slots,
    pub soc: SocSlots,
    pub min_odometer_m: Option<i64>,
    pub max_odometer_m: Option<i64>,
    pub max_speed_dkmh: i32,
}

/// A fix as the day counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayFix {
    pub time: DateTime<Utc>,
    pub speed_dkmh: i32,
    pub odometer_m: Option<i64>,
    pub soc: Option<i16>,
}

fn min_of(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn max_of(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

impl Day {
    /// Counts a fix of this day.
    pub fn add(&mut self, fix: &DayFix) {
        let (_, slot) = slot_of(fix.time);
        self.online.set(slot);
        if let Some(soc) = fix.soc {
            self.soc.set(slot, soc);
        }
        if fix.speed_dkmh >= MOVING_DKMH {
            self.moving.set(slot);
        }
        self.min_odometer_m = min_of(self.min_odometer_m, fix.odometer_m);
        self.max_odometer_m = max_of(self.max_odometer_m, fix.odometer_m);
        self.max_speed_dkmh = self.max_speed_dkmh.max(fix.speed_dkmh);
    }

    /// Both days' fixes together.
    pub fn merge(&mut self, other: &Day) {
        self.moving.union(&other.moving);
        self.online.union(&other.online);
        self.soc.merge(&other.soc);
        self.min_odometer_m = min_of(self.min_odometer_m, other.min_odometer_m);
        self.max_odometer_m = max_of(self.max_odometer_m, other.max_odometer_m);
        self.max_speed_dkmh = self.max_speed_dkmh.max(other.max_speed_dkmh);
    }

    /// The figures the log shows.
    pub fn totals(&self) -> Totals {
        let moving = self.moving.filled(MOVING_GAP);
        let online = self.online.filled(ONLINE_GAP);
        let driving = moving.iter().filter(|m| **m).count();
        let online_slots = online
            .iter()
            .zip(&moving)
            .filter(|(o, m)| **o || **m)
            .count();
        let mut trips = 0;
        let mut last_moving: Option<usize> = None;
        for (i, m) in moving.iter().enumerate() {
            if *m {
                if last_moving.is_none_or(|l| i - l > TRIP_GAP + 1) {
                    trips += 1;
                }
                last_moving = Some(i);
            }
        }
        let first = moving.iter().position(|m| *m);
        let last = moving.iter().rposition(|m| *m);
        Totals {
            mileage_m: match (self.min_odometer_m, self.max_odometer_m) {
                (Some(lo), Some(hi)) => hi - lo,
                _ => 0,
            },
            driving_s: 60 * driving as i64,
            online_s: 60 * online_slots as i64,
            idle_s: 60 * (online_slots - driving) as i64,
            trip_count: trips,
            first_start_slot: first,
            last_stop_slot: last.map(|l| l + 1),
            soc_drop_pct: self.soc.drop_pct(),
        }
    }
}

/// A day's figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub mileage_m: i64,
    pub driving_s: i64,
    pub online_s: i64,
    pub idle_s: i64,
    pub trip_count: i32,
    /// The first slot moving, and the slot after the last.
    pub first_start_slot: Option<usize>,
    pub last_stop_slot: Option<usize>,
    /// Percentage points of charge used; `None` without a SOC reading.
    pub soc_drop_pct: Option<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u32, m: u32, s: u32) -> DateTime<Utc> {
        // 2026-11-20 in Beijing.
        slot_start(
            NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
            (h * 60 + m) as usize,
        ) + chrono::Duration::seconds(i64::from(s))
    }

    fn fix(time: DateTime<Utc>, kmh: i32, odo: i64) -> DayFix {
        DayFix {
            time,
            speed_dkmh: kmh * 10,
            odometer_m: Some(odo),
            soc: None,
        }
    }

    #[test]
    fn slots_are_minutes_of_the_beijing_day() {
        let t = DateTime::parse_from_rfc3339("2026-11-19T16:01:30Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            slot_of(t),
            (NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(), 1)
        );
        assert_eq!(
            slot_start(NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(), 1),
            t - chrono::Duration::seconds(30)
        );
    }

    #[test]
    fn a_morning_drive_with_a_short_stop_is_one_trip_and_a_long_stop_makes_two() {
        let mut day = Day::default();
        // 08:00-08:29 driving every 30 s, a 3-minute stop, 08:33-08:59 driving.
        for m in (0..30).chain(33..60) {
            for s in [0, 30] {
                day.add(&fix(at(8, m, s), 40, 10_000 + i64::from(m) * 600));
            }
        }
        for m in 30..33 {
            day.add(&fix(at(8, m, 0), 0, 28_000));
        }
        // 14:00-14:09 driving after hours parked.
        for m in 0..10 {
            day.add(&fix(at(14, m, 0), 50, 40_000 + i64::from(m) * 800));
        }
        let t = day.totals();
        assert_eq!(t.trip_count, 2);
        assert_eq!(t.driving_s, (57 + 10) * 60);
        assert_eq!(t.online_s, (60 + 10) * 60);
        assert_eq!(t.idle_s, 3 * 60);
        assert_eq!(t.mileage_m, 40_000 + 9 * 800 - 10_000);
        assert_eq!(
            (t.first_start_slot, t.last_stop_slot),
            (Some(480), Some(850))
        );
    }

    #[test]
    fn soc_used_is_the_sum_of_its_falls_in_any_order_and_a_charge_counts_nothing() {
        let soc_fix = |h: u32, m: u32, s: u32, soc: i16| DayFix {
            time: at(h, m, s),
            speed_dkmh: 300,
            odometer_m: None,
            soc: Some(soc),
        };
        // 90 → 70 driving, charged to 95, 95 → 80 driving; two readings a minute.
        let mut fixes = Vec::new();
        for (i, soc) in (70..=90).rev().enumerate() {
            fixes.push(soc_fix(8, i as u32, 0, soc));
            fixes.push(soc_fix(8, i as u32, 30, soc));
        }
        for (i, soc) in (70..=95).enumerate() {
            fixes.push(soc_fix(12, i as u32, 0, soc));
        }
        for (i, soc) in (80..=95).rev().enumerate() {
            fixes.push(soc_fix(16, i as u32, 0, soc));
        }
        let mut in_order = Day::default();
        fixes.iter().for_each(|f| in_order.add(f));
        assert_eq!(in_order.totals().soc_drop_pct, Some(20 + 15));
        let mut late = Day::default();
        let mut rest = Day::default();
        for (i, f) in fixes.iter().rev().enumerate() {
            if i % 4 == 1 { late.add(f) } else { rest.add(f) }
        }
        rest.merge(&late);
        assert_eq!(rest, in_order);
        assert_eq!(Day::default().totals().soc_drop_pct, None);
        assert_eq!(
            SocSlots::from_bytes(in_order.soc.to_bytes().as_deref()),
            in_order.soc
        );
    }

    #[test]
    fn any_order_and_any_split_of_the_fixes_gives_the_same_day() {
        let fixes: Vec<DayFix> = (0..300)
            .map(|i| {
                fix(
                    at(6, 0, 0) + chrono::Duration::seconds(i * 37),
                    (i % 7) as i32 * 9,
                    5_000 + i * 11,
                )
            })
            .collect();
        let mut whole = Day::default();
        fixes.iter().for_each(|f| whole.add(f));
        let mut a = Day::default();
        let mut b = Day::default();
        for (i, f) in fixes.iter().rev().enumerate() {
            if i % 3 == 0 { a.add(f) } else { b.add(f) }
        }
        a.merge(&b);
        a.merge(&b);
        assert_eq!(a, whole);
        assert_eq!(Slots::from_bytes(whole.moving.as_bytes()), whole.moving);
    }
}
