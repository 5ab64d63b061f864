//! Rule evaluation inside ingest's transaction, scoped to one enterprise:
//! its enabled rules, each touched vehicle's [`Track`], the machine run over
//! the batch's new fixes, and what it found upserted by natural key.
//!
//! A vehicle whose new fixes are all after its track's newest goes on from
//! the stored track. One with a late fix (a backfill, a reordered batch) is
//! run again from its track's `clear_at` over the stored history (the new
//! fixes are in it already); untreated alarms of that stretch that the run
//! no longer finds are removed. Without a clear point before the late fix
//! the run starts [`REPLAY_HOURS`] before it.
//!
//! An enterprise without rules costs one query per batch.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use sqlx::PgConnection;
use uuid::Uuid;

use super::domain::{Rule, RuleKind};
use super::engine::{Found, Sample, Span, Track};

/// How far back a late fix is replayed when its vehicle was never clear.
pub const REPLAY_HOURS: i64 = 12;

/// What evaluation did in a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub vehicles: usize,
    pub replays: usize,
    /// Alarms raised (new rows).
    pub raised: usize,
}

impl Summary {
    pub fn add(&mut self, other: Summary) {
        self.vehicles += other.vehicles;
        self.replays += other.replays;
        self.raised += other.raised;
    }
}

#[derive(sqlx::FromRow)]
struct RuleRow {
    id: Uuid,
    level: i16,
    params: sqlx::types::Json<RuleKind>,
    org_path: Option<String>,
}

/// The enterprise's enabled rules as the engine applies them.
pub async fn rules(conn: &mut PgConnection, enterprise: Uuid) -> Result<Vec<Rule>, ServiceError> {
    let rows: Vec<RuleRow> = sqlx::query_as(
        // A rule scoped to an organisation the replica no longer has applies
        // to nothing ('!' starts no path).
        "select r.id, r.level, r.params, \
           case when r.org_id is null then null else coalesce(o.path, '!') end as org_path \
         from alarm_rule r \
         left join org_unit o on o.id = r.org_id \
         where r.enterprise_id = $1 and r.enabled and not r.deleted order by r.id",
    )
    .bind(enterprise)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Rule {
            id: r.id,
            level: r.level,
            org_path: r.org_path,
            kind: r.params.0,
        })
        .collect())
}

#[derive(sqlx::FromRow)]
struct VehicleRow {
    id: Uuid,
    org_id: Option<Uuid>,
    org_path: Option<String>,
    state: Option<sqlx::types::Json<Track>>,
}

#[derive(sqlx::FromRow)]
struct HistoryRow {
    vehicle_id: Uuid,
    fix_time: DateTime<Utc>,
    lat: f64,
    lng: f64,
    speed_dkmh: i32,
    alarm_bits: i64,
    soc: Option<i16>,
}

/// Evaluates one enterprise's new fixes (per vehicle, in fix-time order) in
/// the caller's transaction, which is scoped to that enterprise.
pub async fn apply(
    conn: &mut PgConnection,
    enterprise: Uuid,
    fixes: &BTreeMap<Uuid, Vec<Sample>>,
) -> Result<Summary, ServiceError> {
    let rules = rules(conn, enterprise).await?;
    if rules.is_empty() || fixes.is_empty() {
        return Ok(Summary::default());
    }
    let ids: Vec<Uuid> = fixes.keys().copied().collect();
    let vehicles: Vec<VehicleRow> = sqlx::query_as(
        "select v.id, v.org_id, o.path as org_path, t.state from vehicle v \
         left join org_unit o on o.id = v.org_id \
         left join alarm_track t on t.vehicle_id = v.id \
         where v.id = any($1) order by v.id",
    )
    .bind(&ids)
    .fetch_all(&mut *conn)
    .await?;
    let mut summary = Summary::default();
    let mut found: Vec<(Uuid, Option<Uuid>, Span)> = Vec::new();
    let mut tracks: Vec<(Uuid, Track)> = Vec::new();
    // Vehicles run again from the history: (vehicle, from, its rules).
    let mut replays: Vec<(Uuid, DateTime<Utc>)> = Vec::new();
    let mut pending: HashMap<Uuid, (Option<Uuid>, Vec<Rule>)> = HashMap::new();
    for v in vehicles {
        let Some(new) = fixes.get(&v.id).filter(|f| !f.is_empty()) else {
            continue;
        };
        let path = v.org_path.unwrap_or_default();
        let applied: Vec<Rule> = rules
            .iter()
            .filter(|r| r.applies_to(&path))
            .cloned()
            .collect();
        if applied.is_empty() {
            continue;
        }
        summary.vehicles += 1;
        let mut track = v.state.map(|s| s.0).unwrap_or_default();
        let first = new[0].time;
        if track.last.is_none_or(|last| first > last) {
            let mut spans = Found::default();
            track.run(&applied, new, &mut spans);
            found.extend(spans.into_spans().into_iter().map(|s| (v.id, v.org_id, s)));
            tracks.push((v.id, track));
        } else {
            let from = track
                .clear_at
                .filter(|clear| *clear < first)
                .unwrap_or(first - Duration::hours(REPLAY_HOURS));
            replays.push((v.id, from));
            pending.insert(v.id, (v.org_id, applied));
        }
    }
    if !replays.is_empty() {
        summary.replays = replays.len();
        let history: Vec<HistoryRow> = sqlx::query_as(
            "select p.vehicle_id, p.fix_time, p.lat, p.lng, p.speed_dkmh, p.alarm_bits, p.soc \
             from unnest($1::uuid[], $2::timestamptz[]) w(vehicle_id, since) \
             join position p on p.vehicle_id = w.vehicle_id and p.fix_time >= w.since \
             order by p.vehicle_id, p.fix_time",
        )
        .bind(replays.iter().map(|r| r.0).collect::<Vec<_>>())
        .bind(replays.iter().map(|r| r.1).collect::<Vec<_>>())
        .fetch_all(&mut *conn)
        .await?;
        let mut samples: BTreeMap<Uuid, Vec<Sample>> = BTreeMap::new();
        for h in history {
            samples.entry(h.vehicle_id).or_default().push(Sample {
                time: h.fix_time,
                lat: h.lat,
                lng: h.lng,
                speed_dkmh: h.speed_dkmh,
                alarm_bits: h.alarm_bits,
                soc: h.soc,
            });
        }
        for (vehicle, _) in &replays {
            let (org, applied) = &pending[vehicle];
            let mut track = Track::default();
            let mut spans = Found::default();
            track.run(
                applied,
                samples.get(vehicle).map_or(&[][..], Vec::as_slice),
                &mut spans,
            );
            found.extend(spans.into_spans().into_iter().map(|s| (*vehicle, *org, s)));
            tracks.push((*vehicle, track));
        }
        remove_unfound(conn, &replays, &rules, &found).await?;
    }
    summary.raised = upsert(conn, enterprise, &found).await?;
    save_tracks(conn, enterprise, &tracks).await?;
    Ok(summary)
}

/// Removes the untreated, untouched alarms of replayed stretches that the
/// run did not find again.
async fn remove_unfound(
    conn: &mut PgConnection,
    replays: &[(Uuid, DateTime<Utc>)],
    rules: &[Rule],
    found: &[(Uuid, Option<Uuid>, Span)],
) -> Result<(), ServiceError> {
    sqlx::query(
        "delete from risk_alarm a using unnest($1::uuid[], $2::timestamptz[]) w(vehicle_id, since) \
         where a.vehicle_id = w.vehicle_id and a.started_at >= w.since and a.status = 1 \
           and a.rule_id = any($3) \
           and not exists (select 1 from risk_alarm_activity x where x.alarm_id = a.id) \
           and (a.vehicle_id, a.rule_id, a.condition, a.started_at) not in \
             (select * from unnest($4::uuid[], $5::uuid[], $6::int2[], $7::timestamptz[]))",
    )
    .bind(replays.iter().map(|r| r.0).collect::<Vec<_>>())
    .bind(replays.iter().map(|r| r.1).collect::<Vec<_>>())
    .bind(rules.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.0).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.2.rule_id).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.2.condition).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.2.start).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes what the machine found; answers how many alarms are new.
async fn upsert(
    conn: &mut PgConnection,
    enterprise: Uuid,
    found: &[(Uuid, Option<Uuid>, Span)],
) -> Result<usize, ServiceError> {
    if found.is_empty() {
        return Ok(0);
    }
    let spans = || found.iter().map(|f| &f.2);
    let inserted: Vec<bool> = sqlx::query_scalar(
        "insert into risk_alarm as a (enterprise_id, vehicle_id, org_id, rule_id, condition, kind, \
           level, started_at, ended_at, last_seen_at, lat, lng, peak_speed_dkmh) \
         select $1, t.* from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::int2[], $6::int2[], \
           $7::int2[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], \
           $11::float8[], $12::float8[], $13::int4[]) t \
         on conflict (vehicle_id, rule_id, condition, started_at) do update set \
           ended_at = excluded.ended_at, last_seen_at = excluded.last_seen_at, \
           peak_speed_dkmh = excluded.peak_speed_dkmh \
         where (a.ended_at, a.last_seen_at, a.peak_speed_dkmh) is distinct from \
           (excluded.ended_at, excluded.last_seen_at, excluded.peak_speed_dkmh) \
         returning xmax = 0",
    )
    .bind(enterprise)
    .bind(found.iter().map(|f| f.0).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.1).collect::<Vec<_>>())
    .bind(spans().map(|s| s.rule_id).collect::<Vec<_>>())
    .bind(spans().map(|s| s.condition).collect::<Vec<_>>())
    .bind(spans().map(|s| i16::from(s.kind)).collect::<Vec<_>>())
    .bind(spans().map(|s| s.level).collect::<Vec<_>>())
    .bind(spans().map(|s| s.start).collect::<Vec<_>>())
    .bind(spans().map(|s| s.end).collect::<Vec<_>>())
    .bind(spans().map(|s| s.last).collect::<Vec<_>>())
    .bind(spans().map(|s| s.lat).collect::<Vec<_>>())
    .bind(spans().map(|s| s.lng).collect::<Vec<_>>())
    .bind(spans().map(|s| s.peak_dkmh).collect::<Vec<_>>())
    .fetch_all(conn)
    .await?;
    Ok(inserted.into_iter().filter(|new| *new).count())
}

async fn save_tracks(
    conn: &mut PgConnection,
    enterprise: Uuid,
    tracks: &[(Uuid, Track)],
) -> Result<(), ServiceError> {
    if tracks.is_empty() {
        return Ok(());
    }
    let states: Vec<String> = tracks
        .iter()
        .map(|(_, t)| serde_json::to_string(t).map_err(|e| ServiceError::internal(&e)))
        .collect::<Result<_, _>>()?;
    sqlx::query(
        "insert into alarm_track (vehicle_id, enterprise_id, state) \
         select v, $2, s::jsonb from unnest($1::uuid[], $3::text[]) t(v, s) \
         on conflict (vehicle_id) do update set state = excluded.state",
    )
    .bind(tracks.iter().map(|t| t.0).collect::<Vec<_>>())
    .bind(enterprise)
    .bind(&states)
    .execute(conn)
    .await?;
    Ok(())
}
