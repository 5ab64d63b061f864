//! Rule evaluation inside ingest's transaction, scoped to one enterprise:
//! its enabled rules, each touched vehicle's [`Track`], the machine run over
//! the batch's new fixes, and what it found upserted by natural key.
//!
//! A vehicle whose new fixes are all after its track's newest goes on from
//! its track: the one this process kept (`tracks`) when it is current, else
//! the stored one, caught up over the history it has not run. One with a
//! late fix (a backfill, a reordered batch) is
//! run again from its track's `clear_at` over the stored history (the new
//! fixes are in it already); untreated alarms of that stretch that the run
//! no longer finds are removed. Without a clear point before the late fix
//! the run starts [`REPLAY_HOURS`] before it (and, under a daily driving
//! limit, no later than the Beijing midnight before it).
//!
//! The rules that are not conditions of the fixes run here too, after
//! fence and temperature evaluation in the same transaction:
//! - overspeed reads, per fix, the lowest speed limit of the fences the fix
//!   is inside (the enterprise's cached fence index), which wins over the
//!   rule's own limit;
//! - fence window: crossings become instant alarms (start = end = the
//!   crossing), one per rule, direction and crossing time. An in-order
//!   vehicle's new crossings come from fence evaluation in memory (an
//!   in-order run only adds); a replayed vehicle's are read back, confirmed
//!   since [`REPLAY_HOURS`] before its earliest new fix (so a replay that
//!   moved or removed a crossing is seen), and reconciled like a replay;
//! - temperature: each touched probe under a band is recomputed from its
//!   last in-range buffered reading before the batch's earliest one (as the
//!   cold-chain evaluation does) with the rule's minimum duration, and its
//!   alarms from there on reconciled (condition `probe_condition(probe)`);
//! - offline: `offline::on_fixes` ends the vehicles' offline alarms at
//!   their next fix and keeps the job's watch.
//!
//! An enterprise without rules costs one query per batch.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{
    AlarmKind, ENTER_CONDITION, EXIT_CONDITION, Rule, RuleKind, beijing_day_start, probe_condition,
    window_crossing,
};
use super::engine::{Found, Sample, Span, Track};
use super::offline;
use super::tracks::{Cached, TrackCache};
use crate::geofences::engine::{Crossing, FenceIndex, Fix};
use crate::temperature::domain::{self as temperature, Band};
use crate::temperature::evaluate::Windows;

/// How far back a late fix is replayed when its vehicle was never clear.
pub const REPLAY_HOURS: i64 = 12;

/// What evaluation did in a batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub vehicles: usize,
    pub replays: usize,
    /// Alarms raised (new rows).
    pub raised: usize,
    /// Vehicles run on from a stored track older than their newest fix.
    pub caught_up: usize,
    /// Tracks written to `alarm_track`.
    pub stored_tracks: usize,
}

impl Summary {
    pub fn add(&mut self, other: Summary) {
        self.vehicles += other.vehicles;
        self.replays += other.replays;
        self.raised += other.raised;
        self.caught_up += other.caught_up;
        self.stored_tracks += other.stored_tracks;
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

/// Whether the engine runs the rule over the fixes.
fn on_fixes(kind: &RuleKind) -> bool {
    match kind {
        RuleKind::Overspeed { .. }
        | RuleKind::Fatigue { .. }
        | RuleKind::NightDriving { .. }
        | RuleKind::LowSoc { .. }
        | RuleKind::Terminal { .. } => true,
        RuleKind::FenceWindow { .. } | RuleKind::Temperature { .. } | RuleKind::Offline { .. } => {
            false
        }
    }
}

/// Sets each sample's fence speed limit.
fn fence_limits(index: &FenceIndex, vehicle: Uuid, samples: &mut [Sample]) {
    for s in samples {
        let fix = Fix {
            time: s.time,
            lat: s.lat,
            lng: s.lng,
            speed_dkmh: s.speed_dkmh,
        };
        s.fence_limit_dkmh = index.speed_limit_dkmh(vehicle, &fix);
    }
}

/// One enterprise's batch as fence and temperature evaluation left it.
#[derive(Debug)]
pub struct Batch<'a> {
    /// The enterprise's fence index, read in this transaction.
    pub fences: &'a FenceIndex,
    /// The new fixes per vehicle, in fix-time order.
    pub fixes: BTreeMap<Uuid, Vec<Sample>>,
    /// Cold-chain evaluation's windows of the touched probes.
    pub windows: &'a Windows,
    /// Fence evaluation's new crossings of in-order vehicles.
    pub crossings: &'a [(Uuid, Crossing)],
    /// Vehicles fence evaluation replayed (their crossings are read back).
    pub replayed: &'a BTreeSet<Uuid>,
    /// Each vehicle's newest stored fix before the batch (none for a new
    /// vehicle), read under its latest position's lock.
    pub latest_before: &'a HashMap<Uuid, DateTime<Utc>>,
    /// The tracks this process kept from earlier batches.
    pub tracks: &'a TrackCache,
}

/// What evaluation found, and the tracks to keep once the batch commits
/// ([`TrackCache::keep`]).
#[derive(Debug, Default)]
pub struct Evaluated {
    pub summary: Summary,
    pub tracks: Vec<(Uuid, Cached)>,
}

/// Evaluates one enterprise's new fixes (per vehicle, in fix-time order) and
/// probe readings in the caller's transaction, which is scoped to that
/// enterprise and has run fence and temperature evaluation on them.
pub async fn apply(
    conn: &mut PgConnection,
    enterprise: Uuid,
    batch: Batch<'_>,
) -> Result<Evaluated, ServiceError> {
    let Batch {
        fences,
        mut fixes,
        windows,
        crossings,
        replayed,
        latest_before,
        tracks: cache,
    } = batch;
    let all = rules(conn, enterprise).await?;
    if all.is_empty() || fixes.is_empty() {
        return Ok(Evaluated {
            summary: Summary::default(),
            tracks: follow_without_rules(cache, &fixes, latest_before),
        });
    }
    let (rules, others): (Vec<Rule>, Vec<Rule>) = all.into_iter().partition(|r| on_fixes(&r.kind));
    // Fence limits only matter to overspeed rules.
    let index = Some(fences).filter(|i| {
        i.has_speed_limits()
            && rules
                .iter()
                .any(|r| matches!(r.kind, RuleKind::Overspeed { .. }))
    });
    if let Some(index) = index {
        for (vehicle, samples) in &mut fixes {
            fence_limits(index, *vehicle, samples);
        }
    }
    let fixes = &fixes;
    let ids: Vec<Uuid> = fixes.keys().copied().collect();
    let mut current = if rules.is_empty() {
        HashMap::new()
    } else {
        cache.current(&ids, |v| latest_before.get(&v).copied())
    };
    let vehicles = vehicles(conn, &rules, &others, &ids, &current).await?;
    let mut summary = Summary::default();
    if !others.is_empty() {
        let scoped: Vec<(Uuid, Option<Uuid>, &str)> = vehicles
            .iter()
            .map(|v| (v.id, v.org_id, v.org_path.as_deref().unwrap_or_default()))
            .collect();
        let crossed = Crossed {
            new: crossings,
            replayed,
        };
        summary.raised += fence_windows(conn, enterprise, &others, &scoped, fixes, crossed).await?;
        summary.raised += temperatures(conn, enterprise, &others, &scoped, windows).await?;
        offline::on_fixes(conn, enterprise, &others, &scoped, fixes).await?;
    }
    if rules.is_empty() {
        return Ok(Evaluated {
            summary,
            tracks: follow_without_rules(cache, fixes, latest_before),
        });
    }
    let mut found: Vec<(Uuid, Option<Uuid>, Span)> = Vec::new();
    let mut tracks: Vec<(Uuid, Cached)> = Vec::new();
    // Vehicles run again from the history: (vehicle, from, the track it
    // starts from: a clear one for a replay, the stored one to catch up).
    let mut reruns: Vec<(Uuid, DateTime<Utc>, Rerun)> = Vec::new();
    let mut pending: HashMap<Uuid, (Option<Uuid>, Vec<Rule>)> = HashMap::new();
    // Without an organisation's rule every rule applies to every vehicle:
    // none is copied per vehicle.
    let everywhere = rules.iter().all(|r| r.org_path.is_none());
    let mut scoped_applied: Vec<Rule>;
    for v in vehicles {
        let Some(new) = fixes.get(&v.id).filter(|f| !f.is_empty()) else {
            continue;
        };
        let applied: &[Rule] = if everywhere {
            &rules
        } else {
            let path = v.org_path.unwrap_or_default();
            scoped_applied = rules
                .iter()
                .filter(|r| r.applies_to(&path))
                .cloned()
                .collect();
            &scoped_applied
        };
        if applied.is_empty() {
            continue;
        }
        summary.vehicles += 1;
        let (mut track, stored) = match current.remove(&v.id) {
            Some(c) => (c.track, c.stored),
            None => {
                let track = v.state.map(|s| s.0).unwrap_or_default();
                let stored = track.last;
                (track, stored)
            }
        };
        let first = new[0].time;
        let before = latest_before.get(&v.id).copied();
        match start(&track, first, before) {
            Start::OnFrom => {
                let mut spans = Found::default();
                track.run(applied, new, &mut spans);
                found.extend(spans.into_spans().into_iter().map(|s| (v.id, v.org_id, s)));
                tracks.push((v.id, Cached { track, stored }));
            }
            Start::CatchUp(since) => {
                reruns.push((v.id, since, Rerun::CatchUp(track)));
                pending.insert(v.id, (v.org_id, applied.to_vec()));
            }
            Start::Replay => {
                let from = replay_from(&track, applied, first);
                reruns.push((v.id, from, Rerun::Replay));
                pending.insert(v.id, (v.org_id, applied.to_vec()));
            }
        }
    }
    if !reruns.is_empty() {
        let mut samples = history(conn, &reruns).await?;
        if let Some(index) = index {
            for (vehicle, samples) in &mut samples {
                fence_limits(index, *vehicle, samples);
            }
        }
        let mut replays: Vec<(Uuid, Option<i16>, DateTime<Utc>)> = Vec::new();
        for (vehicle, since, rerun) in reruns {
            let (org, applied) = &pending[&vehicle];
            let mut track = match rerun {
                Rerun::Replay => {
                    replays.push((vehicle, None, since));
                    Track::default()
                }
                Rerun::CatchUp(track) => {
                    summary.caught_up += 1;
                    track
                }
            };
            let mut spans = Found::default();
            track.run(
                applied,
                samples.get(&vehicle).map_or(&[][..], Vec::as_slice),
                &mut spans,
            );
            found.extend(spans.into_spans().into_iter().map(|s| (vehicle, *org, s)));
            // Written back at once (as never stored): whoever sees the
            // vehicle next need not run this stretch again.
            tracks.push((
                vehicle,
                Cached {
                    track,
                    stored: None,
                },
            ));
        }
        // A catch-up runs on from a true state, so it finds everything
        // again; only a replay's stretch can hold alarms it no longer finds.
        if !replays.is_empty() {
            summary.replays = replays.len();
            let ids: Vec<Uuid> = rules.iter().map(|r| r.id).collect();
            remove_unfound(conn, &replays, &ids, &found).await?;
        }
    }
    summary.raised += upsert(conn, enterprise, &found).await?;
    summary.stored_tracks = save_tracks(conn, enterprise, &mut tracks).await?;
    Ok(Evaluated { summary, tracks })
}

/// The kept tracks of a batch's vehicles when no rule runs over the fixes:
/// they still follow the fixes, their states dropped as a run without rules
/// drops them. Rules enabled later then apply from their next fix, as a
/// changed rule does, and find the kept track current instead of catching
/// up over fixes no rule was meant to see.
fn follow_without_rules(
    cache: &TrackCache,
    fixes: &BTreeMap<Uuid, Vec<Sample>>,
    latest_before: &HashMap<Uuid, DateTime<Utc>>,
) -> Vec<(Uuid, Cached)> {
    let ids: Vec<Uuid> = fixes.keys().copied().collect();
    cache
        .current(&ids, |v| latest_before.get(&v).copied())
        .into_iter()
        .filter_map(|(vehicle, mut kept)| {
            let new = fixes.get(&vehicle)?;
            let first = new.first()?.time;
            // A late fix leaves the track as it was (the next batch replays).
            if kept.track.last.is_some_and(|last| first <= last) {
                return None;
            }
            kept.track.run(&[], new, &mut Found::default());
            Some((vehicle, kept))
        })
        .collect()
}

/// How a vehicle's machine starts on a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    /// From the track, over the new fixes only.
    OnFrom,
    /// From the track, over the stored history after this time (its
    /// newest fix) and the new fixes.
    CatchUp(DateTime<Utc>),
    /// From a clear track, over the history (a late fix).
    Replay,
}

/// What a rerun over the history starts from.
#[derive(Debug)]
enum Rerun {
    Replay,
    /// The stored track.
    CatchUp(Track),
}

/// How to run `track` on a batch whose earliest new fix is `first`, when
/// the vehicle's newest stored fix before the batch was `before`.
fn start(track: &Track, first: DateTime<Utc>, before: Option<DateTime<Utc>>) -> Start {
    let Some(last) = track.last else {
        // Never run: the rules start with this batch.
        return Start::OnFrom;
    };
    // The track is behind the stored fixes when a process kept it in
    // memory and had not written it back.
    let behind = before.filter(|before| *before > last);
    match behind {
        None if first > last => Start::OnFrom,
        None => Start::Replay,
        // A fix from before the newest stored one: late.
        Some(before) if first <= before => Start::Replay,
        Some(before) if before - last <= Duration::hours(REPLAY_HOURS) => Start::CatchUp(last),
        // Too long behind to read back: what it missed counts as a silence.
        Some(_) => Start::OnFrom,
    }
}

/// Where a replay for a late fix at `first` starts: the track's clear
/// point before it, else [`REPLAY_HOURS`] before it (and, under a daily
/// driving limit, no later than the Beijing midnight before it).
fn replay_from(track: &Track, applied: &[Rule], first: DateTime<Utc>) -> DateTime<Utc> {
    let daily = applied.iter().any(|r| {
        matches!(
            r.kind,
            RuleKind::Fatigue {
                daily_s: Some(_),
                ..
            }
        )
    });
    let fallback = first - Duration::hours(REPLAY_HOURS);
    track
        .clear_at
        .filter(|clear| *clear < first)
        .unwrap_or(if daily {
            fallback.min(beijing_day_start(first))
        } else {
            fallback
        })
}

/// The batch's vehicles with what the rules need: their stored tracks
/// (except those the process has current), and their organisations when a
/// rule is scoped to one.
async fn vehicles(
    conn: &mut PgConnection,
    rules: &[Rule],
    others: &[Rule],
    ids: &[Uuid],
    current: &HashMap<Uuid, Cached>,
) -> Result<Vec<VehicleRow>, ServiceError> {
    // Organisations only matter to rules scoped to one; without such a rule
    // only the tracks are read (the batch's fixes are of stored vehicles),
    // and an alarm's organisation is looked up when it is written.
    let scoped_rules = rules.iter().chain(others).any(|r| r.org_path.is_some());
    if scoped_rules {
        return Ok(sqlx::query_as(
            "select v.id, v.org_id, o.path as org_path, t.state from vehicle v \
             left join org_unit o on o.id = v.org_id \
             left join alarm_track t on t.vehicle_id = v.id and not (v.id = any($2)) \
             where v.id = any($1) order by v.id",
        )
        .bind(ids)
        .bind(current.keys().copied().collect::<Vec<_>>())
        .fetch_all(&mut *conn)
        .await?);
    }
    let missing: Vec<Uuid> = ids
        .iter()
        .copied()
        .filter(|v| !current.contains_key(v))
        .collect();
    let mut stored: HashMap<Uuid, Track> = HashMap::new();
    if !missing.is_empty() {
        let rows: Vec<(Uuid, sqlx::types::Json<Track>)> =
            sqlx::query_as("select vehicle_id, state from alarm_track where vehicle_id = any($1)")
                .bind(&missing)
                .fetch_all(&mut *conn)
                .await?;
        stored.extend(rows.into_iter().map(|(v, t)| (v, t.0)));
    }
    Ok(ids
        .iter()
        .map(|id| VehicleRow {
            id: *id,
            org_id: None,
            org_path: None,
            state: stored.remove(id).map(sqlx::types::Json),
        })
        .collect())
}

/// The stored fixes of each rerun vehicle from its start: at or after a
/// replay's, after a catch-up's (the track's newest fix).
async fn history(
    conn: &mut PgConnection,
    reruns: &[(Uuid, DateTime<Utc>, Rerun)],
) -> Result<BTreeMap<Uuid, Vec<Sample>>, ServiceError> {
    let history: Vec<HistoryRow> = sqlx::query_as(
        "select p.vehicle_id, p.fix_time, p.lat, p.lng, p.speed_dkmh, p.alarm_bits, p.soc \
         from unnest($1::uuid[], $2::timestamptz[], $3::bool[]) w(vehicle_id, since, after) \
         join position p on p.vehicle_id = w.vehicle_id and p.fix_time >= w.since \
           and not (w.after and p.fix_time = w.since) \
         order by p.vehicle_id, p.fix_time",
    )
    .bind(reruns.iter().map(|r| r.0).collect::<Vec<_>>())
    .bind(reruns.iter().map(|r| r.1).collect::<Vec<_>>())
    .bind(
        reruns
            .iter()
            .map(|r| matches!(r.2, Rerun::CatchUp(..)))
            .collect::<Vec<_>>(),
    )
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
            fence_limit_dkmh: None,
        });
    }
    Ok(samples)
}

/// Removes the untreated, untouched alarms of `rules` in the re-evaluated
/// stretches (vehicle, condition or every one, from) that the run did not
/// find again.
async fn remove_unfound(
    conn: &mut PgConnection,
    scopes: &[(Uuid, Option<i16>, DateTime<Utc>)],
    rules: &[Uuid],
    found: &[(Uuid, Option<Uuid>, Span)],
) -> Result<(), ServiceError> {
    sqlx::query(
        "delete from risk_alarm a \
         using unnest($1::uuid[], $8::int2[], $2::timestamptz[]) w(vehicle_id, condition, since) \
         where a.vehicle_id = w.vehicle_id and a.started_at >= w.since and a.status = 1 \
           and (w.condition is null or a.condition = w.condition) \
           and a.rule_id = any($3) \
           and not exists (select 1 from risk_alarm_activity x where x.alarm_id = a.id) \
           and (a.vehicle_id, a.rule_id, a.condition, a.started_at) not in \
             (select * from unnest($4::uuid[], $5::uuid[], $6::int2[], $7::timestamptz[]))",
    )
    .bind(scopes.iter().map(|r| r.0).collect::<Vec<_>>())
    .bind(scopes.iter().map(|r| r.2).collect::<Vec<_>>())
    .bind(rules)
    .bind(found.iter().map(|f| f.0).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.2.rule_id).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.2.condition).collect::<Vec<_>>())
    .bind(found.iter().map(|f| f.2.start).collect::<Vec<_>>())
    .bind(scopes.iter().map(|r| r.1).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// The rules of `kind` that apply to a vehicle under `path`.
fn applying<'a>(
    rules: &'a [Rule],
    path: &'a str,
    kind: fn(&RuleKind) -> bool,
) -> impl Iterator<Item = &'a Rule> + 'a {
    rules
        .iter()
        .filter(move |r| kind(&r.kind) && r.applies_to(path))
}

#[derive(sqlx::FromRow)]
struct CrossingRow {
    vehicle_id: Uuid,
    geofence_id: Uuid,
    direction: i16,
    cross_time: DateTime<Utc>,
    lat: f64,
    lng: f64,
    speed_dkmh: i32,
}

/// What fence evaluation changed in the batch: in-order vehicles' new
/// crossings, and the vehicles whose stored crossings a replay rewrote.
#[derive(Debug, Clone, Copy)]
struct Crossed<'a> {
    new: &'a [(Uuid, Crossing)],
    replayed: &'a BTreeSet<Uuid>,
}

/// Fence-window rules over the crossings the batch changed; answers how
/// many alarms are new. An in-order vehicle's new crossings only add
/// alarms; a replayed vehicle's stretch is read back and reconciled.
async fn fence_windows(
    conn: &mut PgConnection,
    enterprise: Uuid,
    rules: &[Rule],
    vehicles: &[(Uuid, Option<Uuid>, &str)],
    fixes: &BTreeMap<Uuid, Vec<Sample>>,
    crossed: Crossed<'_>,
) -> Result<usize, ServiceError> {
    let is_window = |k: &RuleKind| matches!(k, RuleKind::FenceWindow { .. });
    let mut scopes: Vec<(Uuid, Option<i16>, DateTime<Utc>)> = Vec::new();
    let mut applied: HashMap<Uuid, (Option<Uuid>, Vec<&Rule>)> = HashMap::new();
    for (vehicle, org, path) in vehicles {
        let watched: Vec<&Rule> = applying(rules, path, is_window).collect();
        if watched.is_empty() {
            continue;
        }
        if crossed.replayed.contains(vehicle)
            && let Some(first) = fixes.get(vehicle).and_then(|f| f.first())
        {
            scopes.push((*vehicle, None, first.time - Duration::hours(REPLAY_HOURS)));
        }
        applied.insert(*vehicle, (*org, watched));
    }
    let mut crossings: Vec<CrossingRow> = crossed
        .new
        .iter()
        .filter(|(vehicle, _)| applied.contains_key(vehicle))
        .map(|(vehicle, c)| CrossingRow {
            vehicle_id: *vehicle,
            geofence_id: c.fence,
            direction: i16::from(c.direction),
            cross_time: c.at.time,
            lat: c.at.lat,
            lng: c.at.lng,
            speed_dkmh: c.at.speed_dkmh,
        })
        .collect();
    if !scopes.is_empty() {
        // Every crossing that may start in the reconciled stretch (confirmed
        // at or after its crossing time).
        let stored: Vec<CrossingRow> = sqlx::query_as(
            "select c.vehicle_id, c.geofence_id, c.direction, c.cross_time, c.lat, c.lng, \
               c.speed_dkmh \
             from unnest($1::uuid[], $2::timestamptz[]) w(vehicle_id, since) \
             join geofence_crossing c on c.vehicle_id = w.vehicle_id and c.confirmed_at >= w.since \
             order by c.vehicle_id, c.cross_time, c.geofence_id",
        )
        .bind(scopes.iter().map(|s| s.0).collect::<Vec<_>>())
        .bind(scopes.iter().map(|s| s.2).collect::<Vec<_>>())
        .fetch_all(&mut *conn)
        .await?;
        crossings.extend(stored);
    }
    if crossings.is_empty() && scopes.is_empty() {
        return Ok(0);
    }
    let mut found: Vec<(Uuid, Option<Uuid>, Span)> = Vec::new();
    for c in crossings {
        let (org, watched) = &applied[&c.vehicle_id];
        let enter = c.direction == 1;
        for rule in watched {
            if window_crossing(&rule.kind, c.geofence_id, enter, c.cross_time) {
                found.push((
                    c.vehicle_id,
                    *org,
                    Span {
                        rule_id: rule.id,
                        condition: if enter {
                            ENTER_CONDITION
                        } else {
                            EXIT_CONDITION
                        },
                        kind: AlarmKind::Geofence,
                        level: rule.level,
                        start: c.cross_time,
                        end: Some(c.cross_time),
                        last: c.cross_time,
                        lat: c.lat,
                        lng: c.lng,
                        peak_dkmh: c.speed_dkmh,
                    },
                ));
            }
        }
    }
    // Two fences crossed at one fix are one alarm of a rule.
    found.sort_by_key(|f| (f.0, f.2.rule_id, f.2.condition, f.2.start));
    found.dedup_by_key(|f| (f.0, f.2.rule_id, f.2.condition, f.2.start));
    let ids: Vec<Uuid> = rules
        .iter()
        .filter(|r| is_window(&r.kind))
        .map(|r| r.id)
        .collect();
    if !scopes.is_empty() {
        remove_unfound(conn, &scopes, &ids, &found).await?;
    }
    upsert(conn, enterprise, &found).await
}

#[derive(sqlx::FromRow)]
struct PointRow {
    vehicle_id: Uuid,
    fix_time: DateTime<Utc>,
    lat: f64,
    lng: f64,
    speed_dkmh: i32,
}

/// A temperature rule watching a vehicle: (rule, level, minimum seconds).
type Watching = (Uuid, i16, i32);

/// Temperature rules over the windows cold-chain evaluation read for the
/// touched probes (the same stretch: from the last in-band reading); answers
/// how many alarms are new.
async fn temperatures(
    conn: &mut PgConnection,
    enterprise: Uuid,
    rules: &[Rule],
    vehicles: &[(Uuid, Option<Uuid>, &str)],
    windows: &Windows,
) -> Result<usize, ServiceError> {
    if windows.is_empty() {
        return Ok(0);
    }
    let is_temperature = |k: &RuleKind| matches!(k, RuleKind::Temperature { .. });
    let mut applied: HashMap<Uuid, (Option<Uuid>, Vec<Watching>)> = HashMap::new();
    for (vehicle, org, path) in vehicles {
        let watched: Vec<Watching> = applying(rules, path, is_temperature)
            .map(|r| (r.id, r.level, r.kind.min_duration_s()))
            .collect();
        if !watched.is_empty() {
            applied.insert(*vehicle, (*org, watched));
        }
    }
    let mut scopes: Vec<(Uuid, Option<i16>, DateTime<Utc>)> = Vec::new();
    let mut found: Vec<(Uuid, Option<Uuid>, Span)> = Vec::new();
    for (&(vehicle, probe), window) in windows {
        let Some((org, watched)) = applied.get(&vehicle) else {
            continue;
        };
        let history = &window.readings;
        let (Some(start), Some(newest)) = (
            window.from.or_else(|| history.first().map(|r| r.0)),
            history.last().map(|r| r.0),
        ) else {
            continue;
        };
        let condition = probe_condition(probe);
        scopes.push((vehicle, Some(condition), start));
        for &(rule, level, min_s) in watched {
            let band = Band {
                min_duration_s: min_s,
                ..window.band
            };
            for e in temperature::excursions(history, band) {
                found.push((
                    vehicle,
                    *org,
                    Span {
                        rule_id: rule,
                        condition,
                        kind: AlarmKind::Temperature,
                        level,
                        start: e.started,
                        end: e.ended,
                        last: e.ended.unwrap_or(newest),
                        lat: 0.0,
                        lng: 0.0,
                        peak_dkmh: 0,
                    },
                ));
            }
        }
    }
    if scopes.is_empty() {
        return Ok(0);
    }
    // Where each excursion began (its first reading's fix), in one read.
    if !found.is_empty() {
        let points: Vec<PointRow> = sqlx::query_as(
            "select p.vehicle_id, p.fix_time, p.lat, p.lng, p.speed_dkmh \
             from unnest($1::uuid[], $2::timestamptz[]) k(vehicle_id, fix_time) \
             join position p on p.vehicle_id = k.vehicle_id and p.fix_time = k.fix_time",
        )
        .bind(found.iter().map(|f| f.0).collect::<Vec<_>>())
        .bind(found.iter().map(|f| f.2.start).collect::<Vec<_>>())
        .fetch_all(&mut *conn)
        .await?;
        let at: HashMap<(Uuid, DateTime<Utc>), &PointRow> = points
            .iter()
            .map(|p| ((p.vehicle_id, p.fix_time), p))
            .collect();
        for (vehicle, _, span) in &mut found {
            if let Some(p) = at.get(&(*vehicle, span.start)) {
                (span.lat, span.lng, span.peak_dkmh) = (p.lat, p.lng, p.speed_dkmh);
            }
        }
    }
    let ids: Vec<Uuid> = rules
        .iter()
        .filter(|r| is_temperature(&r.kind))
        .map(|r| r.id)
        .collect();
    remove_unfound(conn, &scopes, &ids, &found).await?;
    upsert(conn, enterprise, &found).await
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
         select $1, t.vehicle_id, coalesce(t.org_id, v.org_id), t.rule_id, t.condition, t.kind, \
           t.level, t.started_at, t.ended_at, t.last_seen_at, t.lat, t.lng, t.peak \
         from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::int2[], $6::int2[], \
           $7::int2[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[], \
           $11::float8[], $12::float8[], $13::int4[]) \
           t(vehicle_id, org_id, rule_id, condition, kind, level, started_at, ended_at, \
             last_seen_at, lat, lng, peak) \
         left join vehicle v on v.id = t.vehicle_id \
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
    .fetch_all(&mut *conn)
    .await?;
    super::notify::opened(conn, &super::notify::of_spans(found)).await?;
    Ok(inserted.into_iter().filter(|new| *new).count())
}

/// Writes the tracks that are due ([`Cached::due`]) and marks them stored;
/// answers how many.
async fn save_tracks(
    conn: &mut PgConnection,
    enterprise: Uuid,
    tracks: &mut [(Uuid, Cached)],
) -> Result<usize, ServiceError> {
    let mut ids = Vec::new();
    let mut states = Vec::new();
    for (vehicle, cached) in tracks.iter_mut().filter(|(_, c)| c.due()) {
        ids.push(*vehicle);
        states.push(serde_json::to_string(&cached.track).map_err(|e| ServiceError::internal(&e))?);
        cached.stored = cached.track.last;
    }
    if ids.is_empty() {
        return Ok(0);
    }
    sqlx::query(
        "insert into alarm_track (vehicle_id, enterprise_id, state) \
         select v, $2, s::jsonb from unnest($1::uuid[], $3::text[]) t(v, s) \
         on conflict (vehicle_id) do update set state = excluded.state",
    )
    .bind(&ids)
    .bind(enterprise)
    .bind(&states)
    .execute(conn)
    .await?;
    Ok(ids.len())
}
