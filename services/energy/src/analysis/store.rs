//! The analysis' reads. One statement shape: the settled sessions of the
//! range in scope (`base`, from the sessions' start-time index), each with
//! its energy split by time-of-use band (`charged`) — by its meter values,
//! priced in the meter value's tariff (else the station's) at the minute it
//! began; energy no meter value covers counts in the band the session
//! started in; a band that cannot be found counts as unknown — and then
//! summed in SQL: overall, per organisation, hour and SOC bucket in one
//! grouping-sets pass, per (organisation, vehicle) for the distance side,
//! per vehicle for the list.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::Paging;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{Sums, VehicleShare};
use crate::reports::{self, Scope};

/// A checked analysis filter.
#[derive(Debug, Clone)]
pub struct Query {
    pub scope: Scope,
    pub plates: Vec<String>,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

/// Appends `with base as (...)`: the filter's settled sessions.
fn push_base(qb: &mut QueryBuilder<'_, Postgres>, q: &Query) {
    qb.push(
        "with base as (select s.id, s.org_id, s.vehicle_id, s.plate_number, s.start_time, \
         s.energy_wh, s.total_fen, s.start_soc, s.end_soc, s.party_id, s.station_id \
         from charging_session s where s.start_time >= ",
    )
    .push_bind(q.start)
    .push(" and s.start_time < ")
    .push_bind(q.end)
    .push(" and s.status = any(")
    .push_bind(reports::settled_codes())
    .push(")");
    q.scope.push(qb);
    if !q.plates.is_empty() {
        qb.push(" and s.plate_number = any(")
            .push_bind(q.plates.clone())
            .push(")");
    }
    qb.push(")");
}

/// The band energy column `name` of `charged`: metered energy in `band`
/// plus the unmetered rest when the session started in it.
fn band_column(band: &str, name: &str) -> String {
    let metered = format!("coalesce(mt.{name}, 0)");
    match band {
        "null" => {
            format!("{metered} + case when sb.period is null then r.rest else 0 end as {name}")
        }
        code => {
            format!("{metered} + case when sb.period = {code} then r.rest else 0 end as {name}")
        }
    }
}

/// Appends `with base ..., metered ..., charged ...`: each settled session
/// with its hour of day (Asia/Shanghai) and its energy by band.
fn push_charged(qb: &mut QueryBuilder<'_, Postgres>, q: &Query) {
    push_base(qb, q);
    // Bands: PEAK 1, FLAT 2, VALLEY 3 (tariff_period.period).
    qb.push(
        ", metered as (select m.session_id, \
         coalesce(sum(m.energy_wh) filter (where coalesce(tm.period, ts.period) = 1), 0)::bigint as peak_wh, \
         coalesce(sum(m.energy_wh) filter (where coalesce(tm.period, ts.period) = 2), 0)::bigint as flat_wh, \
         coalesce(sum(m.energy_wh) filter (where coalesce(tm.period, ts.period) = 3), 0)::bigint as valley_wh, \
         coalesce(sum(m.energy_wh) filter (where coalesce(tm.period, ts.period) is null), 0)::bigint as unknown_wh, \
         coalesce(sum(m.energy_wh), 0)::bigint as metered_wh \
         from base b join charging_meter_value m on m.session_id = b.id \
         cross join lateral (select shanghai_minute(m.period_start) as minute) mm \
         left join tariff t on t.party_id = b.party_id and t.tariff_id = m.tariff_id \
         left join tariff_period tm on tm.tariff_id = t.id \
           and mm.minute >= tm.start_minute and mm.minute < tm.end_minute \
         left join station st on st.id = b.station_id \
         left join tariff_period ts on ts.tariff_id = st.tariff_id \
           and mm.minute >= ts.start_minute and mm.minute < ts.end_minute \
         group by m.session_id), ",
    );
    qb.push(format!(
        "charged as (select b.id, b.org_id, b.vehicle_id, b.plate_number, b.start_time, \
         b.energy_wh, b.total_fen, b.start_soc, b.end_soc, \
         extract(hour from b.start_time at time zone 'Asia/Shanghai')::int as hour, \
         {}, {}, {}, {} \
         from base b left join metered mt on mt.session_id = b.id \
         cross join lateral (select greatest(b.energy_wh - coalesce(mt.metered_wh, 0), 0)::bigint as rest) r \
         left join lateral (select tp.period from station st \
           join tariff_period tp on tp.tariff_id = st.tariff_id \
           where st.id = b.station_id and shanghai_minute(b.start_time) >= tp.start_minute \
           and shanghai_minute(b.start_time) < tp.end_minute limit 1) sb on true)",
        band_column("1", "peak_wh"),
        band_column("2", "flat_wh"),
        band_column("3", "valley_wh"),
        band_column("null", "unknown_wh"),
    ));
}

/// The sums of a group of `charged c`, in [`Sums`]' order.
const SUMS: &str = "count(*)::bigint as session_count, \
     coalesce(sum(c.energy_wh), 0)::bigint as energy_wh, \
     coalesce(sum(c.total_fen), 0)::bigint as total_fen, \
     coalesce(sum(c.peak_wh), 0)::bigint as peak_wh, \
     coalesce(sum(c.flat_wh), 0)::bigint as flat_wh, \
     coalesce(sum(c.valley_wh), 0)::bigint as valley_wh, \
     coalesce(sum(c.unknown_wh), 0)::bigint as unknown_wh, \
     coalesce(sum(c.start_soc), 0)::bigint as start_soc_sum, \
     count(c.start_soc)::bigint as start_soc_count, \
     coalesce(sum(c.end_soc), 0)::bigint as end_soc_sum, \
     count(c.end_soc)::bigint as end_soc_count, \
     count(distinct c.vehicle_id)::bigint as vehicle_count";

/// One group of the overall pass.
#[derive(Debug, Clone, FromRow)]
pub struct GroupRow {
    /// 0 overall, 1 organisation, 2 hour, 3 SOC bucket.
    pub dim: i32,
    pub org_id: Option<Uuid>,
    pub hour: Option<i32>,
    pub bucket: Option<i32>,
    #[sqlx(flatten)]
    pub sums: Sums,
}

/// Overall, per organisation, per hour of day and per SOC bucket at plug-in
/// (a bucket of None: no SOC reported; `least` alone would put those in the
/// last bucket, since it skips nulls).
pub async fn groups(conn: &mut PgConnection, q: &Query) -> Result<Vec<GroupRow>, ServiceError> {
    let mut qb = QueryBuilder::new("");
    push_charged(&mut qb, q);
    qb.push(format!(
        " select case when grouping(c.org_id) = 0 then 1 when grouping(c.hour) = 0 then 2 \
         when grouping(k.bucket) = 0 then 3 else 0 end as dim, c.org_id, c.hour, k.bucket, {SUMS} \
         from charged c cross join lateral (select (case when c.start_soc is not null \
         then least(c.start_soc / 10, {}) end)::int as bucket) k \
         group by grouping sets ((), (c.org_id), (c.hour), (k.bucket))",
        super::domain::SOC_BUCKETS - 1
    ));
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// What each vehicle charged on each organisation's cards.
pub async fn shares(conn: &mut PgConnection, q: &Query) -> Result<Vec<VehicleShare>, ServiceError> {
    let mut qb = QueryBuilder::new("");
    push_charged(&mut qb, q);
    qb.push(
        " select c.org_id, c.vehicle_id, coalesce(sum(c.energy_wh), 0)::bigint as energy_wh, \
         coalesce(sum(c.total_fen), 0)::bigint as total_fen from charged c \
         where c.vehicle_id is not null group by c.org_id, c.vehicle_id",
    );
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One vehicle's sums.
#[derive(Debug, Clone, FromRow)]
pub struct VehicleRow {
    pub vehicle_id: Uuid,
    /// As on its latest session of the range.
    pub plate_number: String,
    pub org_id: Uuid,
    pub usual_hour: i32,
    #[sqlx(flatten)]
    pub sums: Sums,
}

/// Where a page of vehicles starts: after (energy, vehicle) in the list's
/// order (most energy first, then vehicle id).
#[derive(Debug, Clone, Copy)]
pub enum Slice {
    Page(Paging),
    After(Option<(i64, Uuid)>, i64),
}

/// Vehicles, most energy first.
pub async fn vehicles(
    conn: &mut PgConnection,
    q: &Query,
    slice: Slice,
) -> Result<Vec<VehicleRow>, ServiceError> {
    let mut qb = QueryBuilder::new("");
    push_charged(&mut qb, q);
    qb.push(format!(
        " select c.vehicle_id, (array_agg(c.plate_number order by c.start_time desc))[1] as plate_number, \
         (array_agg(c.org_id order by c.start_time desc))[1] as org_id, \
         mode() within group (order by c.hour) as usual_hour, {SUMS} \
         from charged c where c.vehicle_id is not null group by c.vehicle_id"
    ));
    match slice {
        Slice::Page(paging) => {
            qb.push(" order by energy_wh desc, c.vehicle_id limit ")
                .push_bind(paging.size)
                .push(" offset ")
                .push_bind(paging.offset());
        }
        Slice::After(after, limit) => {
            if let Some((energy_wh, vehicle_id)) = after {
                qb.push(" having (coalesce(sum(c.energy_wh), 0) < ")
                    .push_bind(energy_wh)
                    .push(" or (coalesce(sum(c.energy_wh), 0) = ")
                    .push_bind(energy_wh)
                    .push(" and c.vehicle_id > ")
                    .push_bind(vehicle_id)
                    .push("))");
            }
            qb.push(" order by energy_wh desc, c.vehicle_id limit ")
                .push_bind(limit);
        }
    }
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// How many vehicles the filter's sessions charged.
pub async fn vehicle_count(conn: &mut PgConnection, q: &Query) -> Result<i64, ServiceError> {
    let mut qb = QueryBuilder::new("");
    push_base(&mut qb, q);
    qb.push(" select count(distinct vehicle_id) from base");
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}
