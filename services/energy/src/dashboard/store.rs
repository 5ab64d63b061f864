//! The dashboard's reads, each one cheap: balances from the accounts and
//! cards in scope, sessions in progress from a partial index, and every
//! period figure (totals, days, stations, organisations, vehicles) in one
//! grouping-sets pass over `charging_session_figures_idx`, whose included
//! columns (every part of the cost among them) make it an index-only scan
//! of the range.

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::reports::{self, Scope};
use crate::sessions::domain::SessionStatus;

/// Balances of the accounts and cards in scope.
#[derive(Debug, Clone, Copy, Default, FromRow)]
pub struct Balances {
    /// The main account's, when the scope holds it.
    pub main_fen: i64,
    pub accounts_fen: i64,
    pub cards_fen: i64,
    pub active_cards: i64,
    /// Sessions in progress and what their holds keep.
    pub charging_now: i64,
    pub held_fen: i64,
}

pub async fn balances(conn: &mut PgConnection, scope: &Scope) -> Result<Balances, ServiceError> {
    let mut qb = QueryBuilder::new(
        "select coalesce(sum(l.balance_fen) filter (where a.kind = 1), 0)::bigint as main_fen, \
         coalesce(sum(l.balance_fen), 0)::bigint as accounts_fen from charging_account a \
         join ledger_account l on l.id = a.id where a.enterprise_id = ",
    );
    qb.push_bind(scope.enterprise_id);
    scope.push_orgs(&mut qb, "a.org_id");
    let (main_fen, accounts_fen): (i64, i64) = qb.build_query_as().fetch_one(&mut *conn).await?;

    // Cancelled cards returned their balance to the account.
    let mut qb = QueryBuilder::new(
        "select coalesce(sum(l.balance_fen), 0)::bigint, count(*) filter (where c.status = 1) \
         from charging_card c join ledger_account l on l.id = c.ledger_account_id \
         where c.status <> 4 and c.enterprise_id = ",
    );
    qb.push_bind(scope.enterprise_id);
    scope.push_orgs(&mut qb, "c.org_id");
    let (cards_fen, active_cards): (i64, i64) = qb.build_query_as().fetch_one(&mut *conn).await?;

    let mut qb = QueryBuilder::new(
        "select count(*), coalesce(sum(h.balance_fen), 0)::bigint from charging_session s \
         left join ledger_account h on h.enterprise_id = s.enterprise_id and h.kind = 4 \
         and h.owner_id = s.id where s.status = ",
    );
    qb.push_bind(i16::from(SessionStatus::Charging));
    scope.push(&mut qb);
    let (charging_now, held_fen): (i64, i64) = qb.build_query_as().fetch_one(conn).await?;
    Ok(Balances {
        main_fen,
        accounts_fen,
        cards_fen,
        active_cards,
        charging_now,
        held_fen,
    })
}

/// Which group a period row sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    All,
    Day,
    Station,
    Org,
    Vehicle,
}

/// One group of the period's settled sessions.
#[derive(Debug, Clone, Default, FromRow)]
pub struct PeriodRow {
    /// 0 all, 1 day, 2 station, 3 org, 4 vehicle (see [`PeriodRow::dimension`]).
    pub dim: i32,
    pub day: Option<NaiveDate>,
    pub station_id: Option<Uuid>,
    pub org_id: Option<Uuid>,
    pub vehicle_id: Option<Uuid>,
    pub session_count: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    pub total_fen: i64,
    pub vehicle_count: i64,
}

impl PeriodRow {
    pub fn dimension(&self) -> Option<Dimension> {
        match self.dim {
            0 => Some(Dimension::All),
            1 => Some(Dimension::Day),
            2 => Some(Dimension::Station),
            3 => Some(Dimension::Org),
            4 => Some(Dimension::Vehicle),
            _ => None,
        }
    }
}

/// The settled sessions started in `[start, end)`: overall, per day
/// (Asia/Shanghai), per station, per organisation and per vehicle.
pub async fn period(
    conn: &mut PgConnection,
    scope: &Scope,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<PeriodRow>, ServiceError> {
    let mut qb = QueryBuilder::new(
        "select case when grouping(x.day) = 0 then 1 when grouping(s.station_id) = 0 then 2 \
         when grouping(s.org_id) = 0 then 3 when grouping(s.vehicle_id) = 0 then 4 else 0 end as dim, \
         x.day, s.station_id, s.org_id, s.vehicle_id, count(*) as session_count, \
         coalesce(sum(s.energy_wh), 0)::bigint as energy_wh, \
         coalesce(sum(s.electricity_fen), 0)::bigint as electricity_fen, \
         coalesce(sum(s.service_fee_fen), 0)::bigint as service_fee_fen, \
         coalesce(sum(s.parking_fee_fen), 0)::bigint as parking_fee_fen, \
         coalesce(sum(s.time_fee_fen), 0)::bigint as time_fee_fen, \
         coalesce(sum(s.fixed_fee_fen), 0)::bigint as fixed_fee_fen, \
         coalesce(sum(s.reservation_fee_fen), 0)::bigint as reservation_fee_fen, \
         coalesce(sum(s.discount_fen), 0)::bigint as discount_fen, \
         coalesce(sum(s.total_fen), 0)::bigint as total_fen, \
         count(distinct s.vehicle_id) as vehicle_count \
         from charging_session s \
         cross join lateral (select (s.start_time at time zone 'Asia/Shanghai')::date as day) x \
         where s.start_time >= ",
    );
    qb.push_bind(start)
        .push(" and s.start_time < ")
        .push_bind(end)
        .push(" and s.status = any(")
        .push_bind(reports::settled_codes())
        .push(")");
    scope.push(&mut qb);
    qb.push(" group by grouping sets ((), (x.day), (s.station_id), (s.org_id), (s.vehicle_id))");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Station names of `ids` (stations are the operator's, shared by tenants).
pub async fn station_names(
    conn: &mut PgConnection,
    ids: &[Uuid],
) -> Result<Vec<(Uuid, String)>, ServiceError> {
    Ok(
        sqlx::query_as("select id, name from station where id = any($1)")
            .bind(ids)
            .fetch_all(conn)
            .await?,
    )
}

/// The plate of each of `ids` on its latest session before `end`.
pub async fn plates(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
    end: DateTime<Utc>,
) -> Result<Vec<(Uuid, String)>, ServiceError> {
    Ok(sqlx::query_as(
        "select v.id, coalesce((select s.plate_number from charging_session s \
           where s.enterprise_id = $1 and s.vehicle_id = v.id and s.start_time < $3 \
           order by s.start_time desc limit 1), '') from unnest($2::uuid[]) v(id)",
    )
    .bind(enterprise_id)
    .bind(ids)
    .bind(end)
    .fetch_all(conn)
    .await?)
}
