//! The operation log's rows: each (vehicle, day) and (vehicle, month)
//! kept up to date by ingest in the batch's own transaction, and the list
//! queries of the daily and monthly logs.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use fleetdesk_kit::list::{Filters, Paging, Sort};
use fleetdesk_kit::{ErrorCode, ServiceError};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::rollup::{Day, DayFix, Slots, SocSlots, Totals, slot_of, slot_start};
use crate::context::Actor;
use crate::ingest::domain::FixRow;
use crate::ingest::store::column;

#[derive(FromRow)]
struct StoredDay {
    vehicle_id: Uuid,
    day: NaiveDate,
    version: i64,
    moving: Vec<u8>,
    online: Vec<u8>,
    soc: Option<Vec<u8>>,
    soc_drop_pct: Option<i32>,
    min_odometer_m: Option<i64>,
    max_odometer_m: Option<i64>,
    max_speed_dkmh: i32,
    mileage_m: i64,
    driving_s: i64,
    idle_s: i64,
    driverless: bool,
}

/// How a batch moves one vehicle's month.
#[derive(Debug, Clone, Copy)]
struct MonthDelta {
    enterprise: Uuid,
    mileage_m: i64,
    driving_s: i64,
    idle_s: i64,
    operating_days: i32,
    /// `None` while no day of the batch's has or had a SOC drop.
    soc_drop_pct: Option<i32>,
}

/// How a day's SOC drop moves its month: `None` when it had none and has none.
fn drop_delta(old: Option<i32>, new: Option<i32>) -> Option<i32> {
    match (old, new) {
        (None, None) => None,
        (old, new) => Some(new.unwrap_or(0) - old.unwrap_or(0)),
    }
}

/// The first day of `day`'s month.
pub fn month_of(day: NaiveDate) -> NaiveDate {
    day.with_day(1).expect("every month has a first day")
}

/// Counts a batch's new fixes (service scope): each touched day is merged
/// with the batch's part and, when that changed it, written whole, and its
/// month moves by the difference. Most fixes change nothing: a minute's
/// later fixes of a parked vehicle fall in a slot already online.
/// Answers the days it read and wrote, for `cache` once the batch commits.
///
/// Days come from `cache`, else are read without a lock, and are written
/// only while their version is the one known (optimistic): a lock per
/// touched day cost Postgres a tuple lock and its WAL record per fix, though
/// batches rarely race (a vehicle's batches take turns on its latest
/// position, and replicas split the fleet). Skipping an unchanged day on
/// an unlocked read is sound because every part of a day only grows
/// (union, minimum, maximum): a later version still covers the batch. A
/// day another transaction wrote in between is read again, locked this
/// time, and merged with what that one wrote.
pub async fn add_fixes(
    conn: &mut PgConnection,
    cache: &DayCache,
    fixes: &[FixRow],
) -> Result<Seen, ServiceError> {
    let mut parts: BTreeMap<DayKey, (Uuid, Day)> = BTreeMap::new();
    for f in fixes {
        let (day, _) = slot_of(f.fix_time);
        parts
            .entry((f.vehicle_id, day))
            .or_insert_with(|| (f.enterprise_id, Day::default()))
            .1
            .add(&DayFix {
                time: f.fix_time,
                speed_dkmh: f.speed_dkmh,
                odometer_m: f.mileage_m,
                soc: f.soc,
            });
    }
    let mut seen = Seen::default();
    let mut written: Vec<DayWrite> = Vec::new();
    // A day first written by another batch after a locked read had no row
    // to lock, so even a locked try can lose; never twice in practice.
    for attempt in 0..ATTEMPTS {
        if parts.is_empty() {
            break;
        }
        let known = if attempt == 0 {
            let mut known = cache.get(parts.keys());
            let missing: Vec<DayKey> = parts
                .keys()
                .filter(|k| !known.contains_key(k))
                .copied()
                .collect();
            known.extend(read_days(&mut *conn, &missing, false).await?);
            known
        } else {
            let keys: Vec<DayKey> = parts.keys().copied().collect();
            read_days(&mut *conn, &keys, true).await?
        };
        let (writes, unchanged) = changed_days(&parts, known);
        seen.days.extend(unchanged);
        let done = write_days(&mut *conn, &writes).await?;
        let lost: HashSet<DayKey> = writes
            .iter()
            .map(DayWrite::key)
            .filter(|k| !done.contains(k))
            .collect();
        parts.retain(|k, _| lost.contains(k));
        written.extend(writes.into_iter().filter(|w| done.contains(&w.key())));
    }
    if !parts.is_empty() {
        return Err(ServiceError::new(
            ErrorCode::Unavailable,
            format!(
                "{} operation days kept changing under this batch",
                parts.len()
            ),
        ));
    }
    if written.is_empty() {
        return Ok(seen);
    }
    let driverless: Vec<DayKey> = written
        .iter()
        .filter(|w| w.driverless)
        .map(DayWrite::key)
        .collect();
    let attributed = attribute_drivers(&mut *conn, &driverless).await?;
    add_to_months(conn, &written).await?;
    seen.written = written.len();
    seen.days.extend(written.into_iter().map(|w| {
        let key = w.key();
        let known = Known {
            version: w.version + 1,
            counted: Counted::of(&w.totals),
            driverless: w.driverless && !attributed.contains(&key),
            day: w.merged,
        };
        (key, known)
    }));
    Ok(seen)
}

/// Tries of [`add_fixes`]: the first unlocked, the rest locked.
const ATTEMPTS: usize = 3;

/// A vehicle's day.
type DayKey = (Uuid, NaiveDate);

/// A day as it was read or written, at its version.
#[derive(Debug, Clone)]
struct Known {
    /// 0 for no row (or one that only charging wrote).
    version: i64,
    day: Day,
    counted: Counted,
    /// Without a driver yet (none was bound when it was last written).
    driverless: bool,
}

/// The days a batch read or wrote, for [`DayCache::keep`] once it commits.
#[derive(Debug, Default)]
pub struct Seen {
    days: Vec<(DayKey, Known)>,
    /// How many days the batch wrote.
    pub written: usize,
}

/// The operation days this process last read or wrote, at their versions,
/// shared by its ingest workers: a batch merges with these rather than read
/// its days back (on the bench 7 µs of Postgres per fix, most of it each
/// day's 1.4 kB of SOC slots on the wire). Never trusted past its version:
/// a day another writer moved fails the version check of the write and is
/// read again. Only a committed batch's days are kept.
#[derive(Debug, Clone, Default)]
pub struct DayCache(Arc<Mutex<HashMap<DayKey, Known>>>);

/// Most days one process keeps (up to about 1.9 kB each, with SOC slots);
/// past it the cache starts again and days are read back until it refills.
pub const DAY_CACHE_CAPACITY: usize = 100_000;

impl DayCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<DayKey, Known>> {
        // A worker that panicked mid-update left whole entries: keep them.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get<'a>(&self, keys: impl Iterator<Item = &'a DayKey>) -> BTreeMap<DayKey, Known> {
        let cache = self.lock();
        keys.filter_map(|k| Some((*k, cache.get(k)?.clone())))
            .collect()
    }

    /// Keeps the days of a committed batch.
    pub fn keep(&self, seen: Seen) {
        if seen.days.is_empty() {
            return;
        }
        let mut cache = self.lock();
        if cache.len() + seen.days.len() > DAY_CACHE_CAPACITY {
            cache.clear();
        }
        cache.extend(seen.days);
    }
}

const READ_DAYS: &str = "select d.vehicle_id, d.day, d.version, d.moving, d.online, d.soc, \
       d.soc_drop_pct, d.min_odometer_m, d.max_odometer_m, d.max_speed_dkmh, d.mileage_m, \
       d.driving_s, d.idle_s, d.driver_id is null as driverless \
     from unnest($1::uuid[], $2::date[]) k(vehicle_id, day) \
     join operation_day d on d.vehicle_id = k.vehicle_id and d.day = k.day";

/// The days stored for `keys`; locked when `lock`, in key order as every
/// writer takes them.
async fn read_days(
    conn: &mut PgConnection,
    keys: &[DayKey],
    lock: bool,
) -> Result<BTreeMap<DayKey, Known>, ServiceError> {
    if keys.is_empty() {
        return Ok(BTreeMap::new());
    }
    let (vehicles, days): (Vec<Uuid>, Vec<NaiveDate>) = keys.iter().copied().unzip();
    let sql = if lock {
        format!("{READ_DAYS} order by d.vehicle_id, d.day for update of d")
    } else {
        READ_DAYS.to_owned()
    };
    let stored: Vec<StoredDay> = sqlx::query_as(&sql)
        .bind(vehicles)
        .bind(days)
        .fetch_all(conn)
        .await?;
    Ok(stored
        .into_iter()
        .map(|s| {
            let known = Known {
                version: s.version,
                day: Day {
                    moving: Slots::from_bytes(&s.moving),
                    online: Slots::from_bytes(&s.online),
                    soc: SocSlots::from_bytes(s.soc.as_deref()),
                    min_odometer_m: s.min_odometer_m,
                    max_odometer_m: s.max_odometer_m,
                    max_speed_dkmh: s.max_speed_dkmh,
                },
                counted: Counted {
                    mileage_m: s.mileage_m,
                    driving_s: s.driving_s,
                    idle_s: s.idle_s,
                    soc_drop_pct: s.soc_drop_pct,
                },
                driverless: s.driverless,
            };
            ((s.vehicle_id, s.day), known)
        })
        .collect())
}

/// A day as the batch writes it, and what it was.
struct DayWrite {
    vehicle: Uuid,
    day: NaiveDate,
    enterprise: Uuid,
    merged: Day,
    totals: Totals,
    /// The version known: 0 for no row (or one that only charging wrote).
    version: i64,
    /// What the day counted before: its month moves by the difference.
    before: Counted,
    /// Without a driver yet (new, or none bound when last written).
    driverless: bool,
}

impl DayWrite {
    fn key(&self) -> DayKey {
        (self.vehicle, self.day)
    }
}

/// A day's figures that its month sums.
#[derive(Debug, Clone, Copy, Default)]
struct Counted {
    mileage_m: i64,
    driving_s: i64,
    idle_s: i64,
    soc_drop_pct: Option<i32>,
}

impl Counted {
    fn of(totals: &Totals) -> Counted {
        Counted {
            mileage_m: totals.mileage_m,
            driving_s: totals.driving_s,
            idle_s: totals.idle_s,
            soc_drop_pct: totals.soc_drop_pct,
        }
    }
}

/// The days that the batch's parts change, merged with what is known of
/// them, and the known days they leave as they are.
fn changed_days(
    parts: &BTreeMap<DayKey, (Uuid, Day)>,
    mut known: BTreeMap<DayKey, Known>,
) -> (Vec<DayWrite>, Vec<(DayKey, Known)>) {
    let mut writes = Vec::with_capacity(parts.len());
    let mut unchanged = Vec::new();
    for (&(vehicle, day), (enterprise, part)) in parts {
        let old = known.remove(&(vehicle, day));
        let mut merged = old.as_ref().map(|k| k.day.clone()).unwrap_or_default();
        merged.merge(part);
        match old {
            Some(old) if old.day == merged => unchanged.push(((vehicle, day), old)),
            old => writes.push(DayWrite {
                vehicle,
                day,
                enterprise: *enterprise,
                totals: merged.totals(),
                merged,
                version: old.as_ref().map_or(0, |k| k.version),
                before: old.as_ref().map_or_else(Counted::default, |k| k.counted),
                driverless: old.as_ref().is_none_or(|k| k.driverless),
            }),
        }
    }
    (writes, unchanged)
}

/// Writes each day whose version is still the one known; answers those written.
async fn write_days(
    conn: &mut PgConnection,
    writes: &[DayWrite],
) -> Result<HashSet<DayKey>, ServiceError> {
    if writes.is_empty() {
        return Ok(HashSet::new());
    }
    let slot_time = |day: NaiveDate, slot: Option<usize>| slot.map(|s| slot_start(day, s));
    let written: Vec<(Uuid, NaiveDate)> = sqlx::query_as(
        "insert into operation_day as d (vehicle_id, day, enterprise_id, moving, online, \
           min_odometer_m, max_odometer_m, max_speed_dkmh, mileage_m, driving_s, online_s, \
           idle_s, trip_count, first_start_at, last_stop_at, soc, soc_drop_pct, version) \
         select * from unnest($1::uuid[], $2::date[], $3::uuid[], $4::bytea[], $5::bytea[], \
           $6::int8[], $7::int8[], $8::int4[], $9::int8[], $10::int8[], $11::int8[], \
           $12::int8[], $13::int4[], $14::timestamptz[], $15::timestamptz[], $16::bytea[], \
           $17::int4[], $18::int8[]) \
         on conflict (vehicle_id, day) do update set moving = excluded.moving, \
           online = excluded.online, min_odometer_m = excluded.min_odometer_m, \
           max_odometer_m = excluded.max_odometer_m, max_speed_dkmh = excluded.max_speed_dkmh, \
           mileage_m = excluded.mileage_m, driving_s = excluded.driving_s, \
           online_s = excluded.online_s, idle_s = excluded.idle_s, \
           trip_count = excluded.trip_count, first_start_at = excluded.first_start_at, \
           last_stop_at = excluded.last_stop_at, soc = excluded.soc, \
           soc_drop_pct = excluded.soc_drop_pct, version = excluded.version \
         where d.version = excluded.version - 1 \
         returning d.vehicle_id, d.day",
    )
    .bind(column(writes, |w| w.vehicle))
    .bind(column(writes, |w| w.day))
    .bind(column(writes, |w| w.enterprise))
    .bind(column(writes, |w| w.merged.moving.as_bytes()))
    .bind(column(writes, |w| w.merged.online.as_bytes()))
    .bind(column(writes, |w| w.merged.min_odometer_m))
    .bind(column(writes, |w| w.merged.max_odometer_m))
    .bind(column(writes, |w| w.merged.max_speed_dkmh))
    .bind(column(writes, |w| w.totals.mileage_m))
    .bind(column(writes, |w| w.totals.driving_s))
    .bind(column(writes, |w| w.totals.online_s))
    .bind(column(writes, |w| w.totals.idle_s))
    .bind(column(writes, |w| w.totals.trip_count))
    .bind(column(writes, |w| {
        slot_time(w.day, w.totals.first_start_slot)
    }))
    .bind(column(writes, |w| {
        slot_time(w.day, w.totals.last_stop_slot)
    }))
    .bind(column(writes, |w| w.merged.soc.to_bytes()))
    .bind(column(writes, |w| w.totals.soc_drop_pct))
    .bind(column(writes, |w| w.version + 1))
    .fetch_all(conn)
    .await?;
    Ok(written.into_iter().collect())
}

/// Moves each written day's month by what the write changed.
async fn add_to_months(conn: &mut PgConnection, written: &[DayWrite]) -> Result<(), ServiceError> {
    let mut months: BTreeMap<(Uuid, NaiveDate), MonthDelta> = BTreeMap::new();
    for w in written {
        let (old, new) = (w.before, &w.totals);
        let month = months
            .entry((w.vehicle, month_of(w.day)))
            .or_insert(MonthDelta {
                enterprise: w.enterprise,
                mileage_m: 0,
                driving_s: 0,
                idle_s: 0,
                operating_days: 0,
                soc_drop_pct: None,
            });
        month.mileage_m += new.mileage_m - old.mileage_m;
        month.driving_s += new.driving_s - old.driving_s;
        month.idle_s += new.idle_s - old.idle_s;
        month.operating_days += i32::from(new.mileage_m > 0) - i32::from(old.mileage_m > 0);
        if let Some(delta) = drop_delta(old.soc_drop_pct, new.soc_drop_pct) {
            month.soc_drop_pct = Some(month.soc_drop_pct.unwrap_or(0) + delta);
        }
    }
    let months: Vec<_> = months.into_iter().collect();
    sqlx::query(
        "insert into operation_month as m (vehicle_id, month, enterprise_id, mileage_m, \
           driving_s, idle_s, operating_days, soc_drop_pct) \
         select * from unnest($1::uuid[], $2::date[], $3::uuid[], $4::int8[], $5::int8[], \
           $6::int8[], $7::int4[], $8::int4[]) \
         on conflict (vehicle_id, month) do update set \
           mileage_m = m.mileage_m + excluded.mileage_m, \
           driving_s = m.driving_s + excluded.driving_s, idle_s = m.idle_s + excluded.idle_s, \
           operating_days = m.operating_days + excluded.operating_days, \
           soc_drop_pct = case when excluded.soc_drop_pct is null then m.soc_drop_pct \
             else coalesce(m.soc_drop_pct, 0) + excluded.soc_drop_pct end",
    )
    .bind(column(&months, |m| m.0.0))
    .bind(column(&months, |m| m.0.1))
    .bind(column(&months, |m| m.1.enterprise))
    .bind(column(&months, |m| m.1.mileage_m))
    .bind(column(&months, |m| m.1.driving_s))
    .bind(column(&months, |m| m.1.idle_s))
    .bind(column(&months, |m| m.1.operating_days))
    .bind(column(&months, |m| m.1.soc_drop_pct))
    .execute(conn)
    .await?;
    Ok(())
}

/// The safety report's driver of each written day without one: the
/// vehicle's bound driver now (so at the first batch that writes the day
/// and finds one: a day is written at least once a minute while its vehicle
/// reports); once set it stays, a later rebinding does not move the day.
/// Answers the days it gave one.
async fn attribute_drivers(
    conn: &mut PgConnection,
    keys: &[DayKey],
) -> Result<HashSet<DayKey>, ServiceError> {
    if keys.is_empty() {
        return Ok(HashSet::new());
    }
    let attributed: Vec<DayKey> = sqlx::query_as(
        "update operation_day d set driver_id = v.driver_id, driver_name = v.driver_name \
         from unnest($1::uuid[], $2::date[]) k(vehicle_id, day) \
         join vehicle v on v.id = k.vehicle_id \
         where d.vehicle_id = k.vehicle_id and d.day = k.day \
           and d.driver_id is null and v.driver_id is not null \
         returning d.vehicle_id, d.day",
    )
    .bind(keys.iter().map(|k| k.0).collect::<Vec<_>>())
    .bind(keys.iter().map(|k| k.1).collect::<Vec<_>>())
    .fetch_all(conn)
    .await?;
    Ok(attributed.into_iter().collect())
}

// --- Lists ---

#[derive(Debug, Clone, FromRow)]
pub struct DayRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub day: NaiveDate,
    pub mileage_m: i64,
    pub min_odometer_m: Option<i64>,
    pub max_odometer_m: Option<i64>,
    pub driving_s: i64,
    pub idle_s: i64,
    pub online_s: i64,
    pub trip_count: i32,
    pub max_speed_dkmh: i32,
    pub first_start_at: Option<DateTime<Utc>>,
    pub last_stop_at: Option<DateTime<Utc>>,
    /// The day's driver (the vehicle's bound driver when the day began counting).
    pub driver_name: Option<String>,
    pub alarm_count: i64,
    /// `None` without a SOC reading or a battery capacity.
    pub energy_consumed_wh: Option<i64>,
    pub energy_charged_wh: i64,
    pub charge_count: i32,
}

#[derive(Debug, Clone, FromRow)]
pub struct MonthRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub month: NaiveDate,
    pub mileage_m: i64,
    pub driving_s: i64,
    pub idle_s: i64,
    pub operating_days: i32,
    pub alarm_count: i64,
    /// `None` without a SOC reading or a battery capacity.
    pub energy_consumed_wh: Option<i64>,
    pub energy_charged_wh: i64,
    pub charge_count: i32,
}

#[derive(Debug, Clone, Default, FromRow)]
pub struct TotalsRow {
    pub rows: i64,
    pub mileage_m: Option<i64>,
    pub driving_s: Option<i64>,
    pub energy_consumed_wh: Option<i64>,
    pub energy_charged_wh: Option<i64>,
    pub charge_count: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub struct LogQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    /// Inclusive days (or first days of months).
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub operating_only: bool,
}

/// Daily or monthly: the table, its period column and its alarm count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Day,
    Month,
}

impl Period {
    fn column(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Month => "month",
        }
    }

    fn table(self) -> &'static str {
        match self {
            Period::Day => "operation_day",
            Period::Month => "operation_month",
        }
    }

    /// Alarms of a row's vehicle that started in its period (Beijing time).
    fn alarms(self) -> &'static str {
        match self {
            Period::Day => {
                "(select count(*) from risk_alarm a where a.vehicle_id = d.vehicle_id \
                 and a.started_at >= (d.day::timestamp at time zone 'Asia/Shanghai') \
                 and a.started_at < ((d.day + 1)::timestamp at time zone 'Asia/Shanghai'))"
            }
            Period::Month => {
                "(select count(*) from risk_alarm a where a.vehicle_id = d.vehicle_id \
                 and a.started_at >= (d.month::timestamp at time zone 'Asia/Shanghai') \
                 and a.started_at < ((d.month + interval '1 month')::timestamp \
                 at time zone 'Asia/Shanghai'))"
            }
        }
    }

    /// The columns a row of the period reads beyond the common ones.
    fn columns(self) -> &'static str {
        match self {
            Period::Day => {
                "d.day, d.mileage_m, d.min_odometer_m, d.max_odometer_m, d.driving_s, d.idle_s, \
                 d.online_s, d.trip_count, d.max_speed_dkmh, d.first_start_at, d.last_stop_at, \
                 d.driver_name"
            }
            Period::Month => "d.month, d.mileage_m, d.driving_s, d.idle_s, d.operating_days",
        }
    }

    fn rows_select(self) -> String {
        format!(
            "select d.vehicle_id, v.plate_number, v.vin, v.org_id, o.name as org_name, {}, \
               {} as alarm_count, {ENERGY_USED} as energy_consumed_wh, d.energy_charged_wh, \
               d.charge_count \
             from {} d join vehicle v on v.id = d.vehicle_id \
             left join org_unit o on o.id = v.org_id",
            self.columns(),
            self.alarms(),
            self.table()
        )
    }

    fn totals_select(self) -> String {
        format!(
            "select count(*) as rows, sum(d.mileage_m)::int8 as mileage_m, \
               sum(d.driving_s)::int8 as driving_s, \
               sum({ENERGY_USED})::int8 as energy_consumed_wh, \
               sum(d.energy_charged_wh)::int8 as energy_charged_wh, \
               sum(d.charge_count)::int8 as charge_count \
             from {} d join vehicle v on v.id = d.vehicle_id",
            self.table()
        )
    }
}

/// Energy used: the SOC's drop (percentage points) times the battery's
/// capacity; null without either.
const ENERGY_USED: &str = "(case when v.battery_capacity_wh > 0 then \
     d.soc_drop_pct::int8 * v.battery_capacity_wh / 100 end)";

struct Newest(&'static str);

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        self.0
    }
}

/// The list's filter, shared by the list, its totals and its export.
fn filtered<'a>(select: &str, period: Period, actor: &Actor, q: &LogQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "d.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = d.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("v.org_id", q.org_ids.clone());
    f.and()
        .push(format!("d.{} between ", period.column()))
        .push_bind(q.from)
        .push(" and ")
        .push_bind(q.to);
    if q.operating_only {
        f.and().push("d.mileage_m > 0");
    }
    f
}

async fn list<R>(
    conn: &mut PgConnection,
    period: Period,
    actor: &Actor,
    q: &LogQuery,
    paging: Paging,
) -> Result<(Vec<R>, TotalsRow), ServiceError>
where
    R: for<'r> FromRow<'r, sqlx_postgres::PgRow> + Send + Unpin,
{
    let order = match period {
        Period::Day => "d.day desc, d.vehicle_id",
        Period::Month => "d.month desc, d.vehicle_id",
    };
    // A generic plan does not know the page's limit: under the tenant policy
    // it sorts a 100,000-vehicle month to keep 20 rows (431 ms against 6 ms
    // planned for the page, measured by bench (k)); planning each page costs
    // about 2 ms. Parallel workers would start for 20 rows (22 ms), and on
    // the totals they spend more CPU in all for a shorter wait.
    sqlx::query(
        "select set_config('plan_cache_mode', 'force_custom_plan', true), \
         set_config('max_parallel_workers_per_gather', '0', true)",
    )
    .execute(&mut *conn)
    .await?;
    let mut qb = filtered(&period.rows_select(), period, actor, q).page(&Newest(order), paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let totals = totals(conn, period, actor, q).await?;
    Ok((rows, totals))
}

/// The totals of the rows of `q` (with how many there are).
pub async fn totals(
    conn: &mut PgConnection,
    period: Period,
    actor: &Actor,
    q: &LogQuery,
) -> Result<TotalsRow, ServiceError> {
    let mut qb = filtered(&period.totals_select(), period, actor, q).finish();
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// An export page in the list's order (period newest first, then vehicle
/// id) after the row at (`after.0`, `after.1`).
pub async fn page<R>(
    conn: &mut PgConnection,
    period: Period,
    actor: &Actor,
    q: &LogQuery,
    after: Option<(NaiveDate, Uuid)>,
    limit: i64,
) -> Result<Vec<R>, ServiceError>
where
    R: for<'r> FromRow<'r, sqlx_postgres::PgRow> + Send + Unpin,
{
    let column = period.column();
    let mut f = filtered(&period.rows_select(), period, actor, q);
    if let Some((at, vehicle)) = after {
        f.and()
            .push(format!("(d.{column} < "))
            .push_bind(at)
            .push(format!(" or (d.{column} = "))
            .push_bind(at)
            .push(" and d.vehicle_id > ")
            .push_bind(vehicle)
            .push("))");
    }
    let mut qb = f.finish();
    qb.push(format!(" order by d.{column} desc, d.vehicle_id limit "))
        .push_bind(limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn days(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &LogQuery,
    paging: Paging,
) -> Result<(Vec<DayRow>, TotalsRow), ServiceError> {
    list(conn, Period::Day, actor, q, paging).await
}

pub async fn months(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &LogQuery,
    paging: Paging,
) -> Result<(Vec<MonthRow>, TotalsRow), ServiceError> {
    list(conn, Period::Month, actor, q, paging).await
}

/// Adds one settled charge of `energy_wh` to `vehicle`'s `day` and its
/// month (service scope); false when the enterprise has no such vehicle.
pub async fn add_charge(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    day: NaiveDate,
    energy_wh: i64,
) -> Result<bool, ServiceError> {
    let known: bool = sqlx::query_scalar(
        "select exists (select 1 from vehicle where id = $1 and enterprise_id = $2)",
    )
    .bind(vehicle)
    .bind(enterprise)
    .fetch_one(&mut *conn)
    .await?;
    if !known {
        return Ok(false);
    }
    sqlx::query(
        "insert into operation_day as d (vehicle_id, day, enterprise_id, moving, online, \
           energy_charged_wh, charge_count) \
         values ($1, $2, $3, ''::bytea, ''::bytea, $4, 1) \
         on conflict (vehicle_id, day) do update set \
           energy_charged_wh = d.energy_charged_wh + excluded.energy_charged_wh, \
           charge_count = d.charge_count + 1",
    )
    .bind(vehicle)
    .bind(day)
    .bind(enterprise)
    .bind(energy_wh)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "insert into operation_month as m (vehicle_id, month, enterprise_id, energy_charged_wh, \
           charge_count) \
         values ($1, $2, $3, $4, 1) \
         on conflict (vehicle_id, month) do update set \
           energy_charged_wh = m.energy_charged_wh + excluded.energy_charged_wh, \
           charge_count = m.charge_count + 1",
    )
    .bind(vehicle)
    .bind(month_of(day))
    .bind(enterprise)
    .bind(energy_wh)
    .execute(conn)
    .await?;
    Ok(true)
}
