//! The operation log's rows: each (vehicle, day) and (vehicle, month)
//! kept up to date by ingest in the batch's own transaction, and the list
//! queries of the daily and monthly logs.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use sqlx::{FromRow, PgConnection};
use uuid::Uuid;

use super::rollup::{Day, DayFix, Slots, SocSlots, Totals, slot_of, slot_start};
use crate::context::Actor;
use crate::ingest::domain::FixRow;

#[derive(FromRow)]
struct StoredDay {
    vehicle_id: Uuid,
    day: NaiveDate,
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

/// Counts a batch's new fixes (service scope): each touched day is locked,
/// merged with the batch's part and, when that changed it, written whole,
/// and its month moves by the difference. Most fixes change nothing: a
/// minute's later fixes of a parked vehicle fall in a slot already online.
/// Answers how many days were written.
pub async fn add_fixes(conn: &mut PgConnection, fixes: &[FixRow]) -> Result<usize, ServiceError> {
    let mut days: BTreeMap<(Uuid, NaiveDate), (Uuid, Day)> = BTreeMap::new();
    for f in fixes {
        let (day, _) = slot_of(f.fix_time);
        days.entry((f.vehicle_id, day))
            .or_insert_with(|| (f.enterprise_id, Day::default()))
            .1
            .add(&DayFix {
                time: f.fix_time,
                speed_dkmh: f.speed_dkmh,
                odometer_m: f.mileage_m,
                soc: f.soc,
            });
    }
    if days.is_empty() {
        return Ok(0);
    }
    let keys: Vec<(Uuid, NaiveDate)> = days.keys().copied().collect();
    let stored: Vec<StoredDay> = sqlx::query_as(
        "select d.vehicle_id, d.day, d.moving, d.online, d.soc, d.soc_drop_pct, \
           d.min_odometer_m, d.max_odometer_m, d.max_speed_dkmh, d.mileage_m, d.driving_s, d.idle_s, \
           d.driver_id is null as driverless \
         from unnest($1::uuid[], $2::date[]) k(vehicle_id, day) \
         join operation_day d on d.vehicle_id = k.vehicle_id and d.day = k.day \
         order by d.vehicle_id, d.day for update of d",
    )
    .bind(keys.iter().map(|k| k.0).collect::<Vec<_>>())
    .bind(keys.iter().map(|k| k.1).collect::<Vec<_>>())
    .fetch_all(&mut *conn)
    .await?;
    let mut before: BTreeMap<(Uuid, NaiveDate), StoredDay> = stored
        .into_iter()
        .map(|s| ((s.vehicle_id, s.day), s))
        .collect();
    let mut rows: Vec<(Uuid, NaiveDate, Uuid, Day, Totals)> = Vec::with_capacity(days.len());
    let mut months: BTreeMap<(Uuid, NaiveDate), MonthDelta> = BTreeMap::new();
    // Days to give a driver: new ones and those still without one.
    let mut driverless: Vec<(Uuid, NaiveDate)> = Vec::new();
    for ((vehicle, day), (enterprise, part)) in days {
        let old = before.remove(&(vehicle, day));
        let stored_day = old.as_ref().map(|s| Day {
            moving: Slots::from_bytes(&s.moving),
            online: Slots::from_bytes(&s.online),
            soc: SocSlots::from_bytes(s.soc.as_deref()),
            min_odometer_m: s.min_odometer_m,
            max_odometer_m: s.max_odometer_m,
            max_speed_dkmh: s.max_speed_dkmh,
        });
        let mut merged = stored_day.clone().unwrap_or_default();
        merged.merge(&part);
        if stored_day.as_ref() == Some(&merged) {
            continue;
        }
        if old.as_ref().is_none_or(|s| s.driverless) {
            driverless.push((vehicle, day));
        }
        let totals = merged.totals();
        let (m0, d0, i0) = old
            .as_ref()
            .map_or((0, 0, 0), |s| (s.mileage_m, s.driving_s, s.idle_s));
        let month = months
            .entry((vehicle, month_of(day)))
            .or_insert(MonthDelta {
                enterprise,
                mileage_m: 0,
                driving_s: 0,
                idle_s: 0,
                operating_days: 0,
                soc_drop_pct: None,
            });
        month.mileage_m += totals.mileage_m - m0;
        month.driving_s += totals.driving_s - d0;
        month.idle_s += totals.idle_s - i0;
        month.operating_days += i32::from(totals.mileage_m > 0) - i32::from(m0 > 0);
        if let Some(delta) = drop_delta(
            old.as_ref().and_then(|s| s.soc_drop_pct),
            totals.soc_drop_pct,
        ) {
            month.soc_drop_pct = Some(month.soc_drop_pct.unwrap_or(0) + delta);
        }
        rows.push((vehicle, day, enterprise, merged, totals));
    }
    if rows.is_empty() {
        return Ok(0);
    }
    let slot_time = |day: NaiveDate, slot: Option<usize>| slot.map(|s| slot_start(day, s));
    sqlx::query(
        "insert into operation_day as d (vehicle_id, day, enterprise_id, moving, online, \
           min_odometer_m, max_odometer_m, max_speed_dkmh, mileage_m, driving_s, online_s, \
           idle_s, trip_count, first_start_at, last_stop_at, soc, soc_drop_pct) \
         select * from unnest($1::uuid[], $2::date[], $3::uuid[], $4::bytea[], $5::bytea[], \
           $6::int8[], $7::int8[], $8::int4[], $9::int8[], $10::int8[], $11::int8[], \
           $12::int8[], $13::int4[], $14::timestamptz[], $15::timestamptz[], $16::bytea[], \
           $17::int4[]) \
         on conflict (vehicle_id, day) do update set moving = excluded.moving, \
           online = excluded.online, min_odometer_m = excluded.min_odometer_m, \
           max_odometer_m = excluded.max_odometer_m, max_speed_dkmh = excluded.max_speed_dkmh, \
           mileage_m = excluded.mileage_m, driving_s = excluded.driving_s, \
           online_s = excluded.online_s, idle_s = excluded.idle_s, \
           trip_count = excluded.trip_count, first_start_at = excluded.first_start_at, \
           last_stop_at = excluded.last_stop_at, soc = excluded.soc, \
           soc_drop_pct = excluded.soc_drop_pct",
    )
    .bind(rows.iter().map(|r| r.0).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.1).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.2).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| r.3.moving.as_bytes().to_vec())
            .collect::<Vec<_>>(),
    )
    .bind(
        rows.iter()
            .map(|r| r.3.online.as_bytes().to_vec())
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|r| r.3.min_odometer_m).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.3.max_odometer_m).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.3.max_speed_dkmh).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.4.mileage_m).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.4.driving_s).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.4.online_s).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.4.idle_s).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.4.trip_count).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| slot_time(r.1, r.4.first_start_slot))
            .collect::<Vec<_>>(),
    )
    .bind(
        rows.iter()
            .map(|r| slot_time(r.1, r.4.last_stop_slot))
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|r| r.3.soc.to_bytes()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.4.soc_drop_pct).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    attribute_drivers(&mut *conn, &driverless).await?;
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
    .bind(months.iter().map(|m| m.0.0).collect::<Vec<_>>())
    .bind(months.iter().map(|m| m.0.1).collect::<Vec<_>>())
    .bind(months.iter().map(|m| m.1.enterprise).collect::<Vec<_>>())
    .bind(months.iter().map(|m| m.1.mileage_m).collect::<Vec<_>>())
    .bind(months.iter().map(|m| m.1.driving_s).collect::<Vec<_>>())
    .bind(months.iter().map(|m| m.1.idle_s).collect::<Vec<_>>())
    .bind(
        months
            .iter()
            .map(|m| m.1.operating_days)
            .collect::<Vec<_>>(),
    )
    .bind(months.iter().map(|m| m.1.soc_drop_pct).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(rows.len())
}

/// The safety report's driver of each written day without one: the
/// vehicle's bound driver now (so at the first batch that writes the day
/// and finds one: a day is written at least once a minute while its vehicle
/// reports); once set it stays, a later rebinding does not move the day.
async fn attribute_drivers(
    conn: &mut PgConnection,
    keys: &[(Uuid, NaiveDate)],
) -> Result<(), ServiceError> {
    sqlx::query(
        "update operation_day d set driver_id = v.driver_id, driver_name = v.driver_name \
         from unnest($1::uuid[], $2::date[]) k(vehicle_id, day) \
         join vehicle v on v.id = k.vehicle_id \
         where d.vehicle_id = k.vehicle_id and d.day = k.day \
           and d.driver_id is null and v.driver_id is not null",
    )
    .bind(keys.iter().map(|k| k.0).collect::<Vec<_>>())
    .bind(keys.iter().map(|k| k.1).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
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
    R: for<'r> FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
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
    R: for<'r> FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
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
