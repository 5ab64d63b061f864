//! Excursion evaluation against the database, inside ingest's transaction
//! ([`apply`]; [`evaluate_batch`] opens one per enterprise for callers
//! without one). A batch's readings go into
//! the probe's buffer (`temperature_eval_reading`, once per time); then each
//! touched probe is recomputed from its last in-band reading before the
//! batch's earliest reading, and its alarms from there on are made to match
//! (upsert by natural key, drop what no longer holds). Any order, batching
//! or redelivery of the same readings thus leaves the same alarms.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ServiceError, db};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{self, Band, Excursion};

/// The buffer keeps this much of each probe's history.
pub const BUFFER_HOURS: i32 = 48;

/// One probe reading as evaluation takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadingIn {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    pub probe: i16,
    pub time: DateTime<Utc>,
    pub deci: i32,
}

/// What a batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub readings: usize,
    pub probes: usize,
    pub alarms: usize,
}

impl Summary {
    pub fn add(&mut self, other: Summary) {
        self.readings += other.readings;
        self.probes += other.probes;
        self.alarms += other.alarms;
    }
}

/// Evaluates a batch, one tenant transaction per enterprise.
pub async fn evaluate_batch(
    pool: &PgPool,
    readings: &[ReadingIn],
) -> Result<Summary, ServiceError> {
    let mut by_enterprise: BTreeMap<Uuid, Vec<ReadingIn>> = BTreeMap::new();
    for r in readings {
        by_enterprise.entry(r.enterprise_id).or_default().push(*r);
    }
    let mut summary = Summary::default();
    for (enterprise, readings) in by_enterprise {
        let mut tx = db::begin_tenant(pool, enterprise).await?;
        summary.add(apply(&mut tx, enterprise, &readings).await?);
        tx.commit().await?;
    }
    Ok(summary)
}

#[derive(sqlx::FromRow)]
struct BandRow {
    vehicle_id: Uuid,
    probe: i16,
    min_deci: i32,
    max_deci: i32,
    min_duration_s: i32,
}

/// A probe's stretch as evaluation read it: from its last in-band reading
/// before the batch's earliest (`from`; none without one) and every
/// reading since, oldest first, under the probe's `band`.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub band: Band,
    pub from: Option<DateTime<Utc>>,
    pub readings: Vec<(DateTime<Utc>, i32)>,
}

/// The windows a batch evaluated, per (vehicle, probe): the alarm rules on
/// temperature read them from here rather than again.
pub type Windows = BTreeMap<(Uuid, i16), Window>;

/// Evaluates one enterprise's readings in the caller's transaction, which is
/// scoped to that enterprise.
pub async fn apply(
    conn: &mut PgConnection,
    enterprise: Uuid,
    readings: &[ReadingIn],
) -> Result<Summary, ServiceError> {
    Ok(apply_windows(conn, enterprise, readings).await?.0)
}

/// [`apply`], answering the probes' windows too.
pub async fn apply_windows(
    conn: &mut PgConnection,
    enterprise: Uuid,
    readings: &[ReadingIn],
) -> Result<(Summary, Windows), ServiceError> {
    let mut windows = Windows::new();
    if readings.is_empty() {
        return Ok((Summary::default(), windows));
    }
    let vehicles: Vec<Uuid> = {
        let mut v: Vec<Uuid> = readings.iter().map(|r| r.vehicle_id).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let rows: Vec<BandRow> = sqlx::query_as(
        "select vehicle_id, probe, min_deci, max_deci, min_duration_s \
         from temperature_threshold where enterprise_id = $1 and vehicle_id = any($2)",
    )
    .bind(enterprise)
    .bind(&vehicles)
    .fetch_all(&mut *conn)
    .await?;
    let mut bands: BTreeMap<Uuid, Vec<(i16, Band)>> = BTreeMap::new();
    for r in rows {
        bands.entry(r.vehicle_id).or_default().push((
            r.probe,
            Band {
                min_deci: r.min_deci,
                max_deci: r.max_deci,
                min_duration_s: r.min_duration_s,
            },
        ));
    }
    // Only probes under a band are buffered and evaluated; earliest time per probe.
    let mut touched: BTreeMap<(Uuid, i16), (Band, DateTime<Utc>)> = BTreeMap::new();
    let mut kept = Vec::new();
    for r in readings {
        let Some(band) = bands
            .get(&r.vehicle_id)
            .and_then(|b| domain::band_for(b, r.probe))
        else {
            continue;
        };
        kept.push(*r);
        touched
            .entry((r.vehicle_id, r.probe))
            .and_modify(|(_, t)| *t = (*t).min(r.time))
            .or_insert((band, r.time));
    }
    if kept.is_empty() {
        return Ok((Summary::default(), windows));
    }
    sqlx::query(
        "insert into temperature_eval_reading (enterprise_id, vehicle_id, probe, fix_time, deci_celsius) \
         select $1, * from unnest($2::uuid[], $3::int2[], $4::timestamptz[], $5::int4[]) \
         on conflict do nothing",
    )
    .bind(enterprise)
    .bind(kept.iter().map(|r| r.vehicle_id).collect::<Vec<_>>())
    .bind(kept.iter().map(|r| r.probe).collect::<Vec<_>>())
    .bind(kept.iter().map(|r| r.time).collect::<Vec<_>>())
    .bind(kept.iter().map(|r| r.deci).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    let mut summary = Summary {
        readings: kept.len(),
        ..Summary::default()
    };
    let mut locked = None;
    for ((vehicle, probe), (band, earliest)) in touched {
        // Two consumers (replicas) never recompute one vehicle at once.
        if locked != Some(vehicle) {
            sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text, 17))")
                .bind(vehicle)
                .execute(&mut *conn)
                .await?;
            locked = Some(vehicle);
        }
        summary.probes += 1;
        let (alarms, window) = recompute(conn, enterprise, vehicle, probe, band, earliest).await?;
        summary.alarms += alarms;
        windows.insert((vehicle, probe), window);
    }
    Ok((summary, windows))
}

/// A probe's readings from the last one inside `band` before `earliest`
/// (that reading's time, and every reading from it on, oldest first): the
/// stretch whose excursions a late reading can change. Without an in-band
/// reading before it, every reading of the probe.
async fn readings_from_last_in_band(
    conn: &mut PgConnection,
    vehicle: Uuid,
    probe: i16,
    band: Band,
    earliest: DateTime<Utc>,
) -> Result<(Option<DateTime<Utc>>, Vec<(DateTime<Utc>, i32)>), ServiceError> {
    let from: Option<DateTime<Utc>> = sqlx::query_scalar(
        "select max(fix_time) from temperature_eval_reading \
         where vehicle_id = $1 and probe = $2 and fix_time < $3 \
           and deci_celsius between $4 and $5",
    )
    .bind(vehicle)
    .bind(probe)
    .bind(earliest)
    .bind(band.min_deci)
    .bind(band.max_deci)
    .fetch_one(&mut *conn)
    .await?;
    let readings: Vec<(DateTime<Utc>, i32)> = sqlx::query_as(
        "select fix_time, deci_celsius from temperature_eval_reading \
         where vehicle_id = $1 and probe = $2 and ($3::timestamptz is null or fix_time >= $3) \
         order by fix_time",
    )
    .bind(vehicle)
    .bind(probe)
    .bind(from)
    .fetch_all(&mut *conn)
    .await?;
    Ok((from, readings))
}

/// Recomputes one probe's alarms from the last in-band reading before
/// `earliest`; answers how many alarms its window holds now, and the window.
async fn recompute(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    probe: i16,
    band: Band,
    earliest: DateTime<Utc>,
) -> Result<(usize, Window), ServiceError> {
    let (from, readings) = readings_from_last_in_band(conn, vehicle, probe, band, earliest).await?;
    let window = Window {
        band,
        from,
        readings,
    };
    let readings = &window.readings;
    let Some(start) = from.or_else(|| readings.first().map(|r| r.0)) else {
        return Ok((0, window));
    };
    let found = domain::excursions(readings, band);
    let starts: Vec<DateTime<Utc>> = found.iter().map(|e| e.started).collect();
    sqlx::query(
        "delete from temperature_alarm where vehicle_id = $1 and probe = $2 \
         and started_at >= $3 and not (started_at = any($4))",
    )
    .bind(vehicle)
    .bind(probe)
    .bind(start)
    .bind(&starts)
    .execute(&mut *conn)
    .await?;
    for e in &found {
        upsert(conn, enterprise, vehicle, probe, band, e).await?;
    }
    Ok((found.len(), window))
}

async fn upsert(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    probe: i16,
    band: Band,
    e: &Excursion,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into temperature_alarm (id, enterprise_id, vehicle_id, probe, started_at, ended_at, \
         min_seen_deci, max_seen_deci, threshold_min_deci, threshold_max_deci, min_duration_s) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         on conflict (vehicle_id, probe, started_at) do update set \
           ended_at = excluded.ended_at, min_seen_deci = excluded.min_seen_deci, \
           max_seen_deci = excluded.max_seen_deci, \
           threshold_min_deci = excluded.threshold_min_deci, \
           threshold_max_deci = excluded.threshold_max_deci, \
           min_duration_s = excluded.min_duration_s",
    )
    .bind(Uuid::new_v4())
    .bind(enterprise)
    .bind(vehicle)
    .bind(probe)
    .bind(e.started)
    .bind(e.ended)
    .bind(e.min_seen)
    .bind(e.max_seen)
    .bind(band.min_deci)
    .bind(band.max_deci)
    .bind(band.min_duration_s)
    .execute(conn)
    .await?;
    Ok(())
}

/// Drops buffered readings past [`BUFFER_HOURS`] (every tenant).
pub async fn trim_buffer(pool: &PgPool) -> Result<u64, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let done = sqlx::query(
        "delete from temperature_eval_reading where fix_time < now() - make_interval(hours => $1)",
    )
    .bind(BUFFER_HOURS)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(done)
}
