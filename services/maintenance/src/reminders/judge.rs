//! The due rule applied: how an open reminder stands (`domain::standing`
//! over telemetry's meters) and where it sits in the list, stored on its
//! row (`due_state`, `urgency`, `forecast_date` and the reading judged
//! with) so the list filters, orders and pages straight from an index.
//!
//! The rows are judged here and only here: [`refresh`] re-judges a
//! tenant's open reminders in batches (their meters read in one statement
//! per batch, set-based) and writes the ones that changed; the list shows a
//! row's standing re-derived from its stored reading ([`stored`]), so the
//! state it shows is the state it filtered and ordered by. Freshness: the
//! maintenance job re-judges every open reminder hourly (a state changes
//! with the Beijing day and the odometer; an hour behind the odometer is
//! within the plans' due-soon windows), a plan's save and the daily sync
//! leave the rows they move unjudged (`judged_on` null) for the next list
//! or round to judge, and a completion judges the cycle it opens at once.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use fleetdesk_kit::export::scope::PageKey;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::FromRow;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{self, DueState, Reading, Standing};
use super::store::ReminderRow;
use crate::context::Actor;
use crate::odometer::{self, METER_COLUMNS, Meter, meter_joins};
use crate::plans::domain::{Due, Window};

/// The due states a list asks for (none = every open one), and DONE.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateFilter {
    pub states: Vec<DueState>,
    pub done: bool,
}

impl StateFilter {
    /// From the request's statuses (unknown values dropped).
    pub fn parse(statuses: &[i32]) -> StateFilter {
        use pb::MaintenanceReminderStatus as S;
        let mut f = StateFilter::default();
        for s in statuses.iter().filter_map(|s| S::try_from(*s).ok()) {
            match s {
                S::Unspecified => {}
                S::Overdue => f.states.push(DueState::Overdue),
                S::Due => f.states.push(DueState::Due),
                S::Upcoming => f.states.push(DueState::Upcoming),
                S::Ok => f.states.push(DueState::Ok),
                S::Done => f.done = true,
            }
        }
        if f.states.is_empty() && !f.done {
            f.states = vec![
                DueState::Overdue,
                DueState::Due,
                DueState::Upcoming,
                DueState::Ok,
            ];
        }
        f
    }

    /// The stored `due_state`s it lists, in order.
    pub fn ranks(&self) -> Vec<i16> {
        let mut ranks: Vec<i16> = self.states.iter().map(|s| s.rank()).collect();
        if self.done {
            ranks.push(DONE_RANK);
        }
        ranks.sort_unstable();
        ranks.dedup();
        ranks
    }
}

/// A reminder as the list shows it.
#[derive(Debug, Clone)]
pub struct Judged {
    pub row: ReminderRow,
    /// `None` once DONE.
    pub standing: Option<Standing>,
    pub meter: Meter,
}

/// Where a row sits in the list: its urgency (open ones by state, then the
/// day they fall due; DONE ones last, newest first), then its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct OrderKey {
    pub rank: i16,
    pub day: i32,
    pub id: Uuid,
}

impl PageKey for OrderKey {
    fn encode(&self) -> String {
        format!("{},{},{}", self.rank, self.day, self.id)
    }

    fn decode(text: &str) -> Result<Self, ServiceError> {
        let bad = || ServiceError::invalid("after", "导出位置无效");
        let mut parts = text.splitn(3, ',');
        let rank = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let day = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let id = parts
            .next()
            .and_then(|p| Uuid::parse_str(p).ok())
            .ok_or_else(bad)?;
        Ok(OrderKey { rank, day, id })
    }
}

/// The stored `due_state` of DONE rows (after every due state).
pub const DONE_RANK: i16 = 4;

/// Where a reminder sits in the list (its stored `due_state` and
/// `urgency`): open, by state then the day it falls due (unknown last);
/// DONE last, the newest first.
pub fn place(standing: Option<&Standing>, completed_at: Option<DateTime<Utc>>) -> (i16, i32) {
    match (standing, completed_at) {
        (Some(s), _) => {
            let (state, day) = domain::urgency(s);
            let day = if day == NaiveDate::MAX {
                i32::MAX
            } else {
                day.num_days_from_ce()
            };
            (state.rank(), day)
        }
        (None, done) => (
            DONE_RANK,
            -done.map_or(0, |d| odometer::beijing_day(d).num_days_from_ce()),
        ),
    }
}

/// How a cycle due at `due` stands with `window` and `meter` on `today`.
fn judge(due: Due, window: Window, meter: Meter, today: NaiveDate) -> Standing {
    domain::standing(
        due,
        window,
        Reading {
            today,
            odometer_m: meter.odometer_m,
            daily_m: meter.daily_m,
        },
    )
}

/// How `row` stands today with `meter` (`None` once DONE).
pub fn stand(row: &ReminderRow, meter: Meter, today: NaiveDate) -> Option<Standing> {
    row.completed_at.is_none().then(|| {
        judge(
            row.due(),
            Window {
                m: row.soon_m,
                days: row.soon_days,
            },
            meter,
            today,
        )
    })
}

/// One reminder judged today.
pub async fn one(
    conn: &mut PgConnection,
    actor: &Actor,
    row: ReminderRow,
    today: NaiveDate,
) -> Result<Judged, ServiceError> {
    let meters = odometer::meters(conn, actor.enterprise_id, &[row.vehicle_id], today).await?;
    let meter = meters.get(&row.vehicle_id).copied().unwrap_or_default();
    Ok(Judged {
        standing: stand(&row, meter, today),
        row,
        meter,
    })
}

/// A listed row as it was judged: its standing re-derived from the
/// reading stored on it (`today` for a row not judged yet).
pub fn stored(row: ReminderRow, today: NaiveDate) -> Judged {
    let meter = Meter {
        odometer_m: row.judged_odometer_m,
        daily_m: row.judged_daily_m,
    };
    Judged {
        standing: stand(&row, meter, row.judged_on.unwrap_or(today)),
        row,
        meter,
    }
}

/// Which open reminders of a tenant a refresh judges.
#[derive(Debug, Clone, Copy)]
pub enum Refresh<'a> {
    /// Every one (the hourly round).
    Every,
    /// Those not judged since their due or plan changed.
    Unjudged,
    /// These.
    These(&'a [Uuid]),
}

/// Reminders judged per statement.
pub const BATCH: i64 = 1000;

#[derive(Debug, FromRow)]
struct ToJudge {
    id: Uuid,
    due_odometer_m: Option<i64>,
    due_date: Option<NaiveDate>,
    soon_m: i64,
    soon_days: i32,
    judged_on: Option<NaiveDate>,
    odometer_m: Option<i64>,
    total_m: Option<i64>,
    first_day: Option<NaiveDate>,
}

/// What one batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Judging {
    pub read: usize,
    pub written: u64,
    /// The last id read (where the next batch starts).
    pub last: Option<Uuid>,
}

impl Judging {
    /// Where the next batch starts, if there is one.
    fn next(&self) -> Option<Uuid> {
        self.last
            .filter(|_| i64::try_from(self.read).is_ok_and(|n| n == BATCH))
    }
}

/// Judges the next [`BATCH`] of `enterprise`'s open reminders (`which`,
/// by id after `after`) on `today` and stores those whose standing or
/// reading changed. A row whose due or plan moved meanwhile (a concurrent
/// save) keeps waiting for the next judging rather than take a stale one.
pub async fn refresh_batch(
    conn: &mut PgConnection,
    enterprise: Uuid,
    which: Refresh<'_>,
    after: Uuid,
    today: NaiveDate,
) -> Result<Judging, ServiceError> {
    let mut sql = format!(
        "select r.id, r.due_odometer_m, r.due_date, p.soon_m, p.soon_days, r.judged_on, \
           {METER_COLUMNS} \
         from maintenance_reminder r join maintenance_plan p on p.id = r.plan_id {} \
         where r.enterprise_id = $1 and r.completed_at is null and r.id > $2",
        meter_joins("r.vehicle_id", "$1", "$3", "$4")
    );
    sql.push_str(match which {
        Refresh::Every => "",
        Refresh::Unjudged => " and r.judged_on is null",
        Refresh::These(_) => " and r.id = any($6)",
    });
    sql.push_str(" order by r.id limit $5");
    let mut query = sqlx::query_as::<_, ToJudge>(&sql)
        .bind(enterprise)
        .bind(after)
        .bind(odometer::average_from(today))
        .bind(today)
        .bind(BATCH);
    if let Refresh::These(ids) = which {
        query = query.bind(ids);
    }
    let rows = query.fetch_all(&mut *conn).await?;
    let n = rows.len();
    let mut ids = Vec::with_capacity(n);
    let mut was = Vec::with_capacity(n);
    let mut due_m = Vec::with_capacity(n);
    let mut due_date = Vec::with_capacity(n);
    let mut states = Vec::with_capacity(n);
    let mut urgencies = Vec::with_capacity(n);
    let mut forecasts = Vec::with_capacity(n);
    let mut odometers = Vec::with_capacity(n);
    let mut dailies = Vec::with_capacity(n);
    for r in &rows {
        let due = Due {
            odometer_m: r.due_odometer_m,
            date: r.due_date,
        };
        let meter = Meter::from_totals(r.odometer_m, r.total_m, r.first_day, today);
        let window = Window {
            m: r.soon_m,
            days: r.soon_days,
        };
        let standing = judge(due, window, meter, today);
        let (state, urgency) = place(Some(&standing), None);
        ids.push(r.id);
        was.push(r.judged_on);
        due_m.push(r.due_odometer_m);
        due_date.push(r.due_date);
        states.push(state);
        urgencies.push(urgency);
        forecasts.push(standing.forecast);
        odometers.push(meter.odometer_m);
        dailies.push(meter.daily_m);
    }
    let written = if n == 0 {
        0
    } else {
        sqlx::query(
            "update maintenance_reminder r set due_state = u.state, urgency = u.urgency, \
               forecast_date = u.forecast, judged_on = $1, judged_odometer_m = u.odometer_m, \
               judged_daily_m = u.daily_m \
             from unnest($2::uuid[], $3::date[], $4::bigint[], $5::date[], $6::smallint[], \
               $7::int[], $8::date[], $9::bigint[], $10::bigint[]) \
               as u (id, was, due_m, due_date, state, urgency, forecast, odometer_m, daily_m) \
             where r.id = u.id and r.completed_at is null \
               and r.judged_on is not distinct from u.was \
               and (r.due_odometer_m, r.due_date) is not distinct from (u.due_m, u.due_date) \
               and (r.due_state, r.urgency, r.forecast_date, r.judged_on, r.judged_odometer_m, \
                 r.judged_daily_m) is distinct from \
                 (u.state, u.urgency, u.forecast, $1, u.odometer_m, u.daily_m)",
        )
        .bind(today)
        .bind(&ids)
        .bind(&was)
        .bind(&due_m)
        .bind(&due_date)
        .bind(&states)
        .bind(&urgencies)
        .bind(&forecasts)
        .bind(&odometers)
        .bind(&dailies)
        .execute(conn)
        .await?
        .rows_affected()
    };
    Ok(Judging {
        read: n,
        written,
        last: ids.last().copied(),
    })
}

/// [`refresh_batch`] until done, on one connection (within the caller's
/// transaction); answers how many rows were written.
pub async fn refresh_in(
    conn: &mut PgConnection,
    enterprise: Uuid,
    which: Refresh<'_>,
    today: NaiveDate,
) -> Result<u64, ServiceError> {
    let mut after = Uuid::nil();
    let mut written = 0;
    loop {
        let batch = refresh_batch(&mut *conn, enterprise, which, after, today).await?;
        written += batch.written;
        match batch.next() {
            Some(last) => after = last,
            None => return Ok(written),
        }
    }
}

/// [`refresh_batch`] until done, each batch its own tenant transaction (a
/// large tenant's round never holds its rows for long); answers how many
/// rows were written.
pub async fn refresh(
    pool: &PgPool,
    enterprise: Uuid,
    which: Refresh<'_>,
    today: NaiveDate,
) -> Result<u64, ServiceError> {
    let mut after = Uuid::nil();
    let mut written = 0;
    loop {
        let mut tx = db::begin_tenant(pool, enterprise).await?;
        let batch = refresh_batch(&mut tx, enterprise, which, after, today).await?;
        tx.commit().await?;
        written += batch.written;
        match batch.next() {
            Some(last) => after = last,
            None => return Ok(written),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn the_stored_states_of_a_filter_are_ascending_and_done_comes_last() {
        use pb::MaintenanceReminderStatus as S;
        let f = StateFilter::parse(&[S::Done as i32, S::Upcoming as i32, S::Overdue as i32]);
        assert_eq!(f.ranks(), [0, 2, DONE_RANK]);
        assert_eq!(StateFilter::parse(&[]).ranks(), [0, 1, 2, 3]);
    }

    #[test]
    fn open_reminders_sit_by_state_then_day_and_done_ones_newest_first() {
        let day = |d| NaiveDate::from_ymd_opt(2026, 6, d).unwrap();
        let standing = |state, forecast| Standing {
            state,
            remaining_m: None,
            forecast,
            remaining_days: None,
            by_mileage: false,
        };
        let overdue = place(Some(&standing(DueState::Overdue, Some(day(9)))), None);
        let soon = place(Some(&standing(DueState::Upcoming, Some(day(2)))), None);
        let unknown = place(Some(&standing(DueState::Upcoming, None)), None);
        let older = Utc.with_ymd_and_hms(2026, 6, 1, 3, 0, 0).unwrap();
        let newer = Utc.with_ymd_and_hms(2026, 6, 2, 3, 0, 0).unwrap();
        let done_newer = place(None, Some(newer));
        let done_older = place(None, Some(older));
        let mut all = [done_older, unknown, done_newer, soon, overdue];
        all.sort();
        assert_eq!(all, [overdue, soon, unknown, done_newer, done_older]);
        assert_eq!(unknown.1, i32::MAX);
    }
}
