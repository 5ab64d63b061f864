//! Evaluation of a batch of fixes against the fences, with the database:
//! callable without NATS ([`evaluate_batch`]; the consumer and `make bench`
//! both call it).
//!
//! Per enterprise, in one tenant transaction:
//! 1. the enterprise's R-tree comes from [`FenceCache`], rebuilt when the
//!    enterprise's `geofence_version` moved (any process changed a fence);
//! 2. the fixes go into the replay buffer `geofence_fix`; a fix already there
//!    (a redelivery, a terminal's resend) is dropped here, so it changes nothing;
//! 3. each vehicle's cursor (the last fix applied) is locked, so two
//!    evaluators never interleave one vehicle;
//! 4. a vehicle whose new fixes all follow its cursor runs them through its
//!    live states (inside or pending) and the fences its fixes hit;
//! 5. a vehicle with a fix older than its cursor (late, or a blind-zone
//!    backfill) is *replayed*: for each fence that fix may affect — hit by a
//!    buffered fix from then on, live, or crossed with a confirmation from
//!    then on — its state is rebuilt from its last crossing confirmed before
//!    that fix (exact: right after a confirmation the side is known and
//!    nothing is pending), every buffered fix after that confirmation runs
//!    through it again, and the crossings after the anchor are reconciled:
//!    ones the replay no longer finds are removed, new ones written (so are
//!    overstay alarms of stays from the anchor's crossing on). Speeding
//!    alarms from the late fix on are reconciled the same way (they depend
//!    only on a fix and the one before it). Ids derive from each row's
//!    natural key, so a row found again is the same row — written once.
//!
//! The result equals an in-order run over the same fixes as long as the
//! buffer still holds them ([`BUFFER_HOURS`]; older fixes are trimmed).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, DurationRound, Utc};
use fleetdesk_kit::{ServiceError, db};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::{AlarmKind, Direction, Purpose};
use super::engine::{self, Crossing, Fence, FenceIndex, FenceState, Fix, Overstay, Pending};
use super::{convert, store};

/// How long fixes stay in the replay buffer: a backfill older than this
/// replays from what is left.
pub const BUFFER_HOURS: i64 = 48;

/// A fix for one vehicle of one enterprise.
#[derive(Debug, Clone, Copy)]
pub struct FixIn {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    pub fix: Fix,
}

/// What a batch found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// New fixes applied (duplicates and unknown vehicles left out).
    pub fixes: usize,
    pub crossings: usize,
    pub alarms: usize,
    pub sign_ins: usize,
    /// Vehicles replayed for a late fix.
    pub replays: usize,
}

/// Each enterprise's R-tree, rebuilt when its fences changed.
#[derive(Debug, Clone, Default)]
pub struct FenceCache(Arc<Mutex<Indexes>>);

/// Enterprise → (its fence version, its index).
type Indexes = HashMap<Uuid, (i64, Arc<FenceIndex>)>;

impl FenceCache {
    /// The enterprise's index, read in its tenant transaction.
    pub async fn index(
        &self,
        conn: &mut PgConnection,
        enterprise: Uuid,
    ) -> Result<Arc<FenceIndex>, ServiceError> {
        let version: i64 = sqlx::query_scalar(
            "select coalesce((select version from geofence_version where enterprise_id = $1), 0)",
        )
        .bind(enterprise)
        .fetch_one(&mut *conn)
        .await?;
        if let Some((v, index)) = self.lock().get(&enterprise)
            && *v == version
        {
            return Ok(index.clone());
        }
        let fences: Vec<Fence> = store::enabled(conn, enterprise)
            .await?
            .into_iter()
            .filter_map(convert::fence)
            .collect();
        let index = Arc::new(FenceIndex::build(fences));
        tracing::debug!(%enterprise, fences = index.len(), version, "Geofence index rebuilt.");
        self.lock().insert(enterprise, (version, index.clone()));
        Ok(index)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Indexes> {
        // A panic while holding it leaves a map that is still consistent.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Fix times are kept to the microsecond, as Postgres keeps them.
fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.duration_trunc(Duration::microseconds(1)).unwrap_or(t)
}

/// Evaluates a batch of fixes, one tenant transaction per enterprise.
pub async fn evaluate_batch(
    pool: &PgPool,
    cache: &FenceCache,
    fixes: &[FixIn],
) -> Result<Summary, ServiceError> {
    let mut by_enterprise: BTreeMap<Uuid, BTreeMap<Uuid, Vec<Fix>>> = BTreeMap::new();
    for f in fixes {
        let fix = Fix {
            time: micros(f.fix.time),
            ..f.fix
        };
        by_enterprise
            .entry(f.enterprise_id)
            .or_default()
            .entry(f.vehicle_id)
            .or_default()
            .push(fix);
    }
    let mut summary = Summary::default();
    for (enterprise, vehicles) in by_enterprise {
        let mut tx = db::begin_tenant(pool, enterprise).await?;
        let index = cache.index(&mut tx, enterprise).await?;
        let found = Enterprise {
            id: enterprise,
            index: &index,
        }
        .apply(&mut tx, vehicles)
        .await?;
        tx.commit().await?;
        summary.fixes += found.fixes;
        summary.crossings += found.crossings;
        summary.alarms += found.alarms;
        summary.sign_ins += found.sign_ins;
        summary.replays += found.replays;
    }
    Ok(summary)
}

/// Drops buffered fixes older than [`BUFFER_HOURS`] (every tenant).
pub async fn trim_buffer(pool: &PgPool) -> Result<u64, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let done =
        sqlx::query("delete from geofence_fix where fix_time < now() - make_interval(hours => $1)")
            .bind(i32::try_from(BUFFER_HOURS).unwrap_or(48))
            .execute(&mut *tx)
            .await?
            .rows_affected();
    tx.commit().await?;
    Ok(done)
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct VehicleRow {
    id: Uuid,
    plate_number: String,
    org_id: Uuid,
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct StateRow {
    vehicle_id: Uuid,
    geofence_id: Uuid,
    inside: bool,
    since: Option<DateTime<Utc>>,
    pending_inside: Option<bool>,
    pending_since: Option<DateTime<Utc>>,
    pending_lat: Option<f64>,
    pending_lng: Option<f64>,
    pending_speed_dkmh: Option<i32>,
}

impl StateRow {
    fn state(&self) -> FenceState {
        let pending = match (
            self.pending_inside,
            self.pending_since,
            self.pending_lat,
            self.pending_lng,
        ) {
            (Some(inside), Some(time), Some(lat), Some(lng)) => Some(Pending {
                inside,
                fix: Fix {
                    time,
                    lat,
                    lng,
                    speed_dkmh: self.pending_speed_dkmh.unwrap_or(0),
                },
            }),
            _ => None,
        };
        FenceState {
            inside: self.inside,
            since: self.since,
            pending,
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct FixRow {
    vehicle_id: Uuid,
    fix_time: DateTime<Utc>,
    lat: f64,
    lng: f64,
    speed_dkmh: i32,
}

impl FixRow {
    fn fix(&self) -> Fix {
        Fix {
            time: self.fix_time,
            lat: self.lat,
            lng: self.lng,
            speed_dkmh: self.speed_dkmh,
        }
    }
}

/// What one enterprise's batch writes.
#[derive(Debug, Default)]
struct Writes {
    states: Vec<(Uuid, Uuid, FenceState, DateTime<Utc>)>,
    crossings: Vec<(Uuid, Crossing)>,
    speeding: Vec<(Uuid, engine::Speeding)>,
    overstays: Vec<(Uuid, Overstay)>,
    /// Crossings and overstays a replay of (vehicle, fence) reconciles.
    reconcile: Vec<Reconcile>,
    /// (vehicle, from): speeding alarms from then on are reconciled.
    reconcile_speeding: Vec<(Uuid, DateTime<Utc>)>,
    fixes: usize,
    replays: usize,
}

/// What a replay of one vehicle against one fence found again from its anchor on.
#[derive(Debug)]
struct Reconcile {
    vehicle: Uuid,
    fence: Uuid,
    /// Crossings confirmed after it (all when `None`).
    confirmed_after: Option<DateTime<Utc>>,
    /// Overstays of stays from then on: timed after it (all when `None`).
    stays_after: Option<DateTime<Utc>>,
}

impl Writes {
    fn found(&mut self, vehicle: Uuid, found: engine::Found) {
        self.crossings
            .extend(found.crossings.into_iter().map(|c| (vehicle, c)));
        self.overstays
            .extend(found.overstays.into_iter().map(|o| (vehicle, o)));
    }
}

struct Enterprise<'a> {
    id: Uuid,
    index: &'a FenceIndex,
}

impl Enterprise<'_> {
    async fn apply(
        &self,
        conn: &mut PgConnection,
        mut vehicles: BTreeMap<Uuid, Vec<Fix>>,
    ) -> Result<Summary, ServiceError> {
        let ids: Vec<Uuid> = vehicles.keys().copied().collect();
        let known: Vec<VehicleRow> = sqlx::query_as(
            "select id, plate_number, org_id from vehicle where enterprise_id = $1 and id = any($2)",
        )
        .bind(self.id)
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
        let known: HashMap<Uuid, VehicleRow> = known.into_iter().map(|v| (v.id, v)).collect();
        vehicles.retain(|v, _| known.contains_key(v));
        if vehicles.is_empty() {
            return Ok(Summary::default());
        }
        let fresh = self.buffer(conn, &vehicles).await?;
        for (vehicle, fixes) in &mut vehicles {
            fixes.retain(|f| fresh.contains(&(*vehicle, f.time)));
            fixes.sort_by_key(|f| f.time);
            fixes.dedup_by_key(|f| f.time);
        }
        vehicles.retain(|_, fixes| !fixes.is_empty());
        if vehicles.is_empty() {
            return Ok(Summary::default());
        }
        let cursors = self.lock_cursors(conn, &vehicles).await?;
        let mut writes = Writes::default();
        let (mut in_order, mut late) = (BTreeMap::new(), Vec::new());
        for (vehicle, fixes) in vehicles {
            writes.fixes += fixes.len();
            match cursors.get(&vehicle) {
                Some(cursor) if fixes[0].time <= *cursor => late.push((vehicle, fixes[0].time)),
                Some(cursor) => {
                    in_order.insert(vehicle, (Some(*cursor), fixes));
                }
                None => {
                    in_order.insert(vehicle, (None, fixes));
                }
            }
        }
        self.run_in_order(conn, in_order, &mut writes).await?;
        for (vehicle, from) in late {
            writes.replays += 1;
            self.replay(conn, vehicle, from, &mut writes).await?;
        }
        self.write(conn, &known, writes).await
    }

    /// Adds the fixes to the replay buffer; answers the ones that were new.
    async fn buffer(
        &self,
        conn: &mut PgConnection,
        vehicles: &BTreeMap<Uuid, Vec<Fix>>,
    ) -> Result<HashSet<(Uuid, DateTime<Utc>)>, ServiceError> {
        let rows: Vec<(Uuid, &Fix)> = vehicles
            .iter()
            .flat_map(|(v, fixes)| fixes.iter().map(move |f| (*v, f)))
            .collect();
        let new: Vec<(Uuid, DateTime<Utc>)> = sqlx::query_as(
            "insert into geofence_fix (enterprise_id, vehicle_id, fix_time, lat, lng, speed_dkmh) \
             select $1, * from unnest($2::uuid[], $3::timestamptz[], $4::float8[], $5::float8[], \
               $6::int4[]) \
             on conflict do nothing returning vehicle_id, fix_time",
        )
        .bind(self.id)
        .bind(rows.iter().map(|(v, _)| *v).collect::<Vec<_>>())
        .bind(rows.iter().map(|(_, f)| f.time).collect::<Vec<_>>())
        .bind(rows.iter().map(|(_, f)| f.lat).collect::<Vec<_>>())
        .bind(rows.iter().map(|(_, f)| f.lng).collect::<Vec<_>>())
        .bind(rows.iter().map(|(_, f)| f.speed_dkmh).collect::<Vec<_>>())
        .fetch_all(&mut *conn)
        .await?;
        Ok(new.into_iter().collect())
    }

    /// Locks each vehicle's cursor (in id order: no deadlock between
    /// evaluators), moves it to its newest fix and answers the last fix
    /// applied before, where there was one. One upsert keyed by the primary
    /// key: a new vehicle's row is inserted (a racing evaluator's insert of
    /// the same vehicle waits for this one, then sees its cursor), an
    /// existing one is locked and updated, and `previous_fix_at` keeps the
    /// cursor it had (Postgres 15's `returning` shows only the new row).
    async fn lock_cursors(
        &self,
        conn: &mut PgConnection,
        vehicles: &BTreeMap<Uuid, Vec<Fix>>,
    ) -> Result<HashMap<Uuid, DateTime<Utc>>, ServiceError> {
        let ids: Vec<Uuid> = vehicles.keys().copied().collect();
        let newest: Vec<DateTime<Utc>> = vehicles
            .values()
            .map(|f| f.iter().map(|f| f.time).max().unwrap_or_default())
            .collect();
        let locked: Vec<(Uuid, Option<DateTime<Utc>>)> = sqlx::query_as(
            "insert into geofence_cursor as c (vehicle_id, enterprise_id, last_fix_at, \
               previous_fix_at) \
             select v, $1, t, null from unnest($2::uuid[], $3::timestamptz[]) as n(v, t) \
             order by v \
             on conflict (vehicle_id) do update \
               set previous_fix_at = c.last_fix_at, \
                 last_fix_at = greatest(c.last_fix_at, excluded.last_fix_at) \
             returning vehicle_id, previous_fix_at",
        )
        .bind(self.id)
        .bind(&ids)
        .bind(&newest)
        .fetch_all(&mut *conn)
        .await?;
        // The epoch: a row an older version inserted before applying anything.
        Ok(locked
            .into_iter()
            .filter_map(|(v, at)| at.filter(|at| at.timestamp() != 0).map(|at| (v, at)))
            .collect())
    }

    /// Fixes after each vehicle's cursor, through its live states and the fences they hit.
    async fn run_in_order(
        &self,
        conn: &mut PgConnection,
        vehicles: BTreeMap<Uuid, (Option<DateTime<Utc>>, Vec<Fix>)>,
        writes: &mut Writes,
    ) -> Result<(), ServiceError> {
        if vehicles.is_empty() {
            return Ok(());
        }
        let ids: Vec<Uuid> = vehicles.keys().copied().collect();
        let live = live_states(conn, &ids).await?;
        // The fix each vehicle's run follows (speeding compares with it).
        let (prev_ids, prev_times): (Vec<Uuid>, Vec<DateTime<Utc>>) = vehicles
            .iter()
            .filter_map(|(v, (cursor, _))| cursor.map(|c| (*v, c)))
            .unzip();
        // One primary-key probe per vehicle: the `limit` keeps the lateral
        // subquery from being flattened into a join the planner may (with
        // stale statistics: autovacuum may be off) run as a full scan of
        // the buffer.
        let previous: Vec<FixRow> = sqlx::query_as(
            "select c.v as vehicle_id, f.fix_time, f.lat, f.lng, f.speed_dkmh \
             from unnest($1::uuid[], $2::timestamptz[]) as c(v, t) \
             cross join lateral (select fix_time, lat, lng, speed_dkmh from geofence_fix \
               where vehicle_id = c.v and fix_time = c.t limit 1) f",
        )
        .bind(&prev_ids)
        .bind(&prev_times)
        .fetch_all(&mut *conn)
        .await?;
        let previous: HashMap<Uuid, Fix> =
            previous.iter().map(|r| (r.vehicle_id, r.fix())).collect();
        for (vehicle, (_, fixes)) in vehicles {
            let mut states: BTreeMap<Uuid, (FenceState, Option<FenceState>)> = live
                .get(&vehicle)
                .into_iter()
                .flatten()
                .map(|r| (r.geofence_id, (r.state(), Some(r.state()))))
                .collect();
            for fix in &fixes {
                for fence in self.index.candidates(vehicle, fix.point()) {
                    states
                        .entry(fence.id)
                        .or_insert((FenceState::default(), None));
                }
            }
            let last = fixes.last().map(|f| f.time).unwrap_or_default();
            for (fence_id, (mut state, stored)) in states {
                let Some(fence) = self.index.get(fence_id) else {
                    continue;
                };
                writes.found(vehicle, engine::run(fence, &mut state, &fixes));
                // Only a state that changed is written (most fixes change none).
                if state != stored.unwrap_or_default() {
                    writes.states.push((vehicle, fence_id, state, last));
                }
            }
            for s in engine::speeding(self.index, vehicle, previous.get(&vehicle), &fixes) {
                writes.speeding.push((vehicle, s));
            }
        }
        Ok(())
    }

    /// Replays one vehicle from a late fix at `from` (see the module docs).
    async fn replay(
        &self,
        conn: &mut PgConnection,
        vehicle: Uuid,
        from: DateTime<Utc>,
        writes: &mut Writes,
    ) -> Result<(), ServiceError> {
        let since_late = buffered(conn, vehicle, Some(from), true).await?;
        let mut affected: BTreeSet<Uuid> = BTreeSet::new();
        for fix in &since_late {
            affected.extend(self.index.candidates(vehicle, fix.point()).map(|f| f.id));
        }
        let live = live_states(conn, &[vehicle]).await?;
        affected.extend(live.values().flatten().map(|r| r.geofence_id));
        let crossed: Vec<Uuid> = sqlx::query_scalar(
            "select distinct geofence_id from geofence_crossing \
             where vehicle_id = $1 and confirmed_at >= $2",
        )
        .bind(vehicle)
        .bind(from)
        .fetch_all(&mut *conn)
        .await?;
        affected.extend(crossed);
        affected.retain(|f| self.index.get(*f).is_some());
        let fence_ids: Vec<Uuid> = affected.iter().copied().collect();
        // The last crossing confirmed before the late fix, per fence.
        let anchors: Vec<(Uuid, i16, DateTime<Utc>, DateTime<Utc>)> = sqlx::query_as(
            "select distinct on (geofence_id) geofence_id, direction, cross_time, confirmed_at \
             from geofence_crossing \
             where vehicle_id = $1 and geofence_id = any($2) and confirmed_at < $3 \
             order by geofence_id, confirmed_at desc",
        )
        .bind(vehicle)
        .bind(&fence_ids)
        .bind(from)
        .fetch_all(&mut *conn)
        .await?;
        let anchors: HashMap<Uuid, (bool, DateTime<Utc>, DateTime<Utc>)> = anchors
            .into_iter()
            .map(|(f, dir, at, confirmed)| (f, (dir == i16::from(Direction::Enter), at, confirmed)))
            .collect();
        let earliest = if fence_ids.iter().all(|f| anchors.contains_key(f)) {
            anchors.values().map(|(_, _, c)| *c).min()
        } else {
            None
        };
        // Anchors are confirmed before `from`: the history starts at the oldest.
        let history = if fence_ids.is_empty() {
            Vec::new()
        } else {
            buffered(conn, vehicle, earliest, false).await?
        };
        let last = history.last().map(|f| f.time).unwrap_or(from);
        for fence_id in fence_ids {
            let Some(fence) = self.index.get(fence_id) else {
                continue;
            };
            let anchor = anchors.get(&fence_id);
            let mut state = match anchor {
                Some((inside, at, _)) => FenceState {
                    inside: *inside,
                    since: Some(*at),
                    pending: None,
                },
                None => FenceState::default(),
            };
            let after = anchor.map(|(_, _, confirmed)| *confirmed);
            let fixes: Vec<Fix> = history
                .iter()
                .filter(|f| after.is_none_or(|a| f.time > a))
                .copied()
                .collect();
            writes.found(vehicle, engine::run(fence, &mut state, &fixes));
            writes.reconcile.push(Reconcile {
                vehicle,
                fence: fence_id,
                confirmed_after: after,
                stays_after: anchor.map(|(_, at, _)| *at),
            });
            writes.states.push((vehicle, fence_id, state, last));
        }
        let previous: Option<FixRow> = sqlx::query_as(
            "select vehicle_id, fix_time, lat, lng, speed_dkmh from geofence_fix \
             where vehicle_id = $1 and fix_time < $2 order by fix_time desc limit 1",
        )
        .bind(vehicle)
        .bind(from)
        .fetch_optional(&mut *conn)
        .await?;
        let previous = previous.map(|r| r.fix());
        for s in engine::speeding(self.index, vehicle, previous.as_ref(), &since_late) {
            writes.speeding.push((vehicle, s));
        }
        writes.reconcile_speeding.push((vehicle, from));
        Ok(())
    }

    /// Writes states, crossings (with their alarms and sign-ins) and
    /// speeding alarms; removes what a replay no longer finds.
    async fn write(
        &self,
        conn: &mut PgConnection,
        vehicles: &HashMap<Uuid, VehicleRow>,
        writes: Writes,
    ) -> Result<Summary, ServiceError> {
        let mut summary = Summary {
            fixes: writes.fixes,
            replays: writes.replays,
            ..Summary::default()
        };
        let mut crossing_ids: HashSet<Uuid> = HashSet::new();
        let mut alarm_ids: HashSet<Uuid> = HashSet::new();
        let mut c_rows = CrossingRows::default();
        let mut a_rows = AlarmRows::default();
        let mut s_rows = SignInRows::default();
        for (vehicle, c) in &writes.crossings {
            let (Some(v), Some(fence)) = (vehicles.get(vehicle), self.index.get(c.fence)) else {
                continue;
            };
            let id = crossing_id(c.fence, *vehicle, c.direction, c.at.time);
            crossing_ids.insert(id);
            let alarmed = match c.direction {
                Direction::Enter => fence.alert_on_enter,
                Direction::Exit => fence.alert_on_exit,
            };
            c_rows.push(id, v, fence, c, alarmed);
            if alarmed {
                let kind = match c.direction {
                    Direction::Enter => AlarmKind::Enter,
                    Direction::Exit => AlarmKind::Exit,
                };
                let alarm = alarm_id(c.fence, *vehicle, kind, c.at.time);
                alarm_ids.insert(alarm);
                a_rows.push(alarm, v, fence, kind, &c.at, Limit::None);
            }
            if fence.purpose == Purpose::SignIn && c.direction == Direction::Enter {
                s_rows.push(id, v, fence, &c.at);
            }
        }
        for (vehicle, s) in &writes.speeding {
            let (Some(v), Some(fence)) = (vehicles.get(vehicle), self.index.get(s.fence)) else {
                continue;
            };
            let id = alarm_id(s.fence, *vehicle, AlarmKind::Speeding, s.at.time);
            alarm_ids.insert(id);
            a_rows.push(
                id,
                v,
                fence,
                AlarmKind::Speeding,
                &s.at,
                Limit::Speed(s.limit_kmh),
            );
        }
        for (vehicle, o) in &writes.overstays {
            let (Some(v), Some(fence)) = (vehicles.get(vehicle), self.index.get(o.fence)) else {
                continue;
            };
            let id = alarm_id(o.fence, *vehicle, AlarmKind::Overstay, o.due);
            alarm_ids.insert(id);
            // Timed when the stay became too long, where the vehicle was seen then.
            let at = Fix {
                time: o.due,
                ..o.seen
            };
            let minutes = fence.max_stay_seconds.unwrap_or_default() / 60;
            let limit = Limit::Stay(i32::try_from(minutes).unwrap_or(i32::MAX));
            a_rows.push(id, v, fence, AlarmKind::Overstay, &at, limit);
        }
        let keep_crossings: Vec<Uuid> = crossing_ids.iter().copied().collect();
        let keep_alarms: Vec<Uuid> = alarm_ids.iter().copied().collect();
        for r in &writes.reconcile {
            let (vehicle, fence) = (&r.vehicle, &r.fence);
            sqlx::query(
                "delete from geofence_alarm where vehicle_id = $1 and geofence_id = $2 \
                 and kind = $3 and ($4::timestamptz is null or alarm_time > $4) \
                 and not (id = any($5))",
            )
            .bind(vehicle)
            .bind(fence)
            .bind(i16::from(AlarmKind::Overstay))
            .bind(r.stays_after)
            .bind(&keep_alarms)
            .execute(&mut *conn)
            .await?;
            // Crossings (with their sign-ins and enter/exit alarms) the replay no longer finds.
            let gone: Vec<(Uuid, i16, DateTime<Utc>)> = sqlx::query_as(
                "delete from geofence_crossing where vehicle_id = $1 and geofence_id = $2 \
                 and ($3::timestamptz is null or confirmed_at > $3) and not (id = any($4)) \
                 returning id, direction, cross_time",
            )
            .bind(vehicle)
            .bind(fence)
            .bind(r.confirmed_after)
            .bind(&keep_crossings)
            .fetch_all(&mut *conn)
            .await?;
            if gone.is_empty() {
                continue;
            }
            let ids: Vec<Uuid> = gone.iter().map(|g| g.0).collect();
            sqlx::query("delete from sign_in where crossing_id = any($1)")
                .bind(&ids)
                .execute(&mut *conn)
                .await?;
            let alarms: Vec<Uuid> = gone
                .iter()
                .map(|(_, dir, at)| {
                    let kind = if *dir == i16::from(Direction::Enter) {
                        AlarmKind::Enter
                    } else {
                        AlarmKind::Exit
                    };
                    alarm_id(*fence, *vehicle, kind, *at)
                })
                .collect();
            sqlx::query("delete from geofence_alarm where id = any($1)")
                .bind(&alarms)
                .execute(&mut *conn)
                .await?;
        }
        for (vehicle, from) in &writes.reconcile_speeding {
            sqlx::query(
                "delete from geofence_alarm where vehicle_id = $1 and kind = $2 \
                 and alarm_time >= $3 and not (id = any($4))",
            )
            .bind(vehicle)
            .bind(i16::from(AlarmKind::Speeding))
            .bind(from)
            .bind(&keep_alarms)
            .execute(&mut *conn)
            .await?;
        }
        summary.crossings = c_rows.write(conn, self.id).await?;
        summary.alarms = a_rows.write(conn, self.id).await?;
        summary.sign_ins = s_rows.write(conn, self.id).await?;
        write_states(conn, self.id, &writes.states).await?;
        Ok(summary)
    }
}

/// Live states (inside or pending) of these vehicles, by vehicle.
async fn live_states(
    conn: &mut PgConnection,
    vehicles: &[Uuid],
) -> Result<HashMap<Uuid, Vec<StateRow>>, ServiceError> {
    // A primary-key range per vehicle (`offset 0` keeps the subquery a
    // per-vehicle probe whatever the statistics say).
    let rows: Vec<StateRow> = sqlx::query_as(
        "select s.* from unnest($1::uuid[]) as n(v) \
         cross join lateral (select vehicle_id, geofence_id, inside, since, pending_inside, \
           pending_since, pending_lat, pending_lng, pending_speed_dkmh from geofence_state \
           where vehicle_id = n.v and (inside or pending_inside is not null) offset 0) s",
    )
    .bind(vehicles)
    .fetch_all(conn)
    .await?;
    let mut out: HashMap<Uuid, Vec<StateRow>> = HashMap::new();
    for r in rows {
        out.entry(r.vehicle_id).or_default().push(r);
    }
    Ok(out)
}

/// A vehicle's buffered fixes in time order, from `from` (inclusive) or
/// after it (exclusive); all of them when `None`.
async fn buffered(
    conn: &mut PgConnection,
    vehicle: Uuid,
    from: Option<DateTime<Utc>>,
    inclusive: bool,
) -> Result<Vec<Fix>, ServiceError> {
    let rows: Vec<FixRow> = sqlx::query_as(
        "select vehicle_id, fix_time, lat, lng, speed_dkmh from geofence_fix \
         where vehicle_id = $1 and ($2::timestamptz is null or fix_time > $2 \
           or ($3 and fix_time = $2)) \
         order by fix_time",
    )
    .bind(vehicle)
    .bind(from)
    .bind(inclusive)
    .fetch_all(conn)
    .await?;
    Ok(rows.iter().map(FixRow::fix).collect())
}

async fn write_states(
    conn: &mut PgConnection,
    enterprise: Uuid,
    states: &[(Uuid, Uuid, FenceState, DateTime<Utc>)],
) -> Result<(), ServiceError> {
    if states.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "insert into geofence_state (enterprise_id, vehicle_id, geofence_id, inside, since, \
           pending_inside, pending_since, pending_lat, pending_lng, pending_speed_dkmh, last_fix_at) \
         select $1, * from unnest($2::uuid[], $3::uuid[], $4::bool[], $5::timestamptz[], \
           $6::bool[], $7::timestamptz[], $8::float8[], $9::float8[], $10::int4[], \
           $11::timestamptz[]) \
         on conflict (vehicle_id, geofence_id) do update set inside = excluded.inside, \
           since = excluded.since, pending_inside = excluded.pending_inside, \
           pending_since = excluded.pending_since, pending_lat = excluded.pending_lat, \
           pending_lng = excluded.pending_lng, pending_speed_dkmh = excluded.pending_speed_dkmh, \
           last_fix_at = excluded.last_fix_at",
    )
    .bind(enterprise)
    .bind(states.iter().map(|s| s.0).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.1).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.inside).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.since).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.pending.map(|p| p.inside)).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.pending.map(|p| p.fix.time)).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.pending.map(|p| p.fix.lat)).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.pending.map(|p| p.fix.lng)).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.2.pending.map(|p| p.fix.speed_dkmh)).collect::<Vec<_>>())
    .bind(states.iter().map(|s| s.3).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

fn key_id(key: &str) -> Uuid {
    Uuid::new_v5(&Uuid::NAMESPACE_OID, key.as_bytes())
}

/// A crossing's id from its natural key: found again, it is the same row.
pub fn crossing_id(fence: Uuid, vehicle: Uuid, direction: Direction, at: DateTime<Utc>) -> Uuid {
    key_id(&format!(
        "fleetdesk:geofence-crossing:{fence}:{vehicle}:{}:{}",
        i16::from(direction),
        at.timestamp_micros()
    ))
}

fn alarm_id(fence: Uuid, vehicle: Uuid, kind: AlarmKind, at: DateTime<Utc>) -> Uuid {
    key_id(&format!(
        "fleetdesk:geofence-alarm:{fence}:{vehicle}:{}:{}",
        i16::from(kind),
        at.timestamp_micros()
    ))
}

#[derive(Debug, Default)]
struct CrossingRows {
    id: Vec<Uuid>,
    fence: Vec<Uuid>,
    name: Vec<String>,
    vehicle: Vec<Uuid>,
    plate: Vec<String>,
    org: Vec<Uuid>,
    direction: Vec<i16>,
    at: Vec<DateTime<Utc>>,
    confirmed: Vec<DateTime<Utc>>,
    lat: Vec<f64>,
    lng: Vec<f64>,
    speed: Vec<i32>,
    dwell: Vec<Option<i64>>,
    alarmed: Vec<bool>,
}

impl CrossingRows {
    fn push(&mut self, id: Uuid, v: &VehicleRow, fence: &Fence, c: &Crossing, alarmed: bool) {
        self.id.push(id);
        self.fence.push(fence.id);
        self.name.push(fence.name.clone());
        self.vehicle.push(v.id);
        self.plate.push(v.plate_number.clone());
        self.org.push(v.org_id);
        self.direction.push(i16::from(c.direction));
        self.at.push(c.at.time);
        self.confirmed.push(c.confirmed_at);
        self.lat.push(c.at.lat);
        self.lng.push(c.at.lng);
        self.speed.push(c.at.speed_dkmh);
        self.dwell.push(c.dwell_seconds);
        self.alarmed.push(alarmed);
    }

    /// Writes new crossings; one found again keeps its row (its
    /// confirmation may move when a late fix confirmed it sooner).
    async fn write(self, conn: &mut PgConnection, enterprise: Uuid) -> Result<usize, ServiceError> {
        if self.id.is_empty() {
            return Ok(0);
        }
        let new: Vec<Uuid> = sqlx::query_scalar(
            "insert into geofence_crossing (enterprise_id, id, geofence_id, geofence_name, \
               vehicle_id, plate_number, org_id, direction, cross_time, confirmed_at, lat, lng, \
               speed_dkmh, dwell_seconds, alarmed) \
             select $1, * from unnest($2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], \
               $7::uuid[], $8::int2[], $9::timestamptz[], $10::timestamptz[], $11::float8[], \
               $12::float8[], $13::int4[], $14::int8[], $15::bool[]) \
             on conflict (id) do update set confirmed_at = excluded.confirmed_at, \
               dwell_seconds = excluded.dwell_seconds \
             where geofence_crossing.confirmed_at is distinct from excluded.confirmed_at \
                or geofence_crossing.dwell_seconds is distinct from excluded.dwell_seconds \
             returning id",
        )
        .bind(enterprise)
        .bind(&self.id)
        .bind(&self.fence)
        .bind(&self.name)
        .bind(&self.vehicle)
        .bind(&self.plate)
        .bind(&self.org)
        .bind(&self.direction)
        .bind(&self.at)
        .bind(&self.confirmed)
        .bind(&self.lat)
        .bind(&self.lng)
        .bind(&self.speed)
        .bind(&self.dwell)
        .bind(&self.alarmed)
        .fetch_all(conn)
        .await?;
        Ok(new.len())
    }
}

#[derive(Debug, Default)]
struct AlarmRows {
    id: Vec<Uuid>,
    fence: Vec<Uuid>,
    name: Vec<String>,
    vehicle: Vec<Uuid>,
    plate: Vec<String>,
    org: Vec<Uuid>,
    kind: Vec<i16>,
    at: Vec<DateTime<Utc>>,
    lat: Vec<f64>,
    lng: Vec<f64>,
    speed: Vec<i32>,
    limit: Vec<Option<i32>>,
    max_stay: Vec<Option<i32>>,
}

/// The limit an alarm broke, if any.
#[derive(Debug, Clone, Copy)]
enum Limit {
    None,
    /// km/h.
    Speed(i32),
    /// Minutes.
    Stay(i32),
}

impl AlarmRows {
    fn push(
        &mut self,
        id: Uuid,
        v: &VehicleRow,
        fence: &Fence,
        kind: AlarmKind,
        at: &Fix,
        limit: Limit,
    ) {
        self.id.push(id);
        self.fence.push(fence.id);
        self.name.push(fence.name.clone());
        self.vehicle.push(v.id);
        self.plate.push(v.plate_number.clone());
        self.org.push(v.org_id);
        self.kind.push(i16::from(kind));
        self.at.push(at.time);
        self.lat.push(at.lat);
        self.lng.push(at.lng);
        self.speed.push(at.speed_dkmh);
        let (speed, stay) = match limit {
            Limit::None => (None, None),
            Limit::Speed(kmh) => (Some(kmh), None),
            Limit::Stay(minutes) => (None, Some(minutes)),
        };
        self.limit.push(speed);
        self.max_stay.push(stay);
    }

    async fn write(self, conn: &mut PgConnection, enterprise: Uuid) -> Result<usize, ServiceError> {
        if self.id.is_empty() {
            return Ok(0);
        }
        let new: Vec<Uuid> = sqlx::query_scalar(
            "insert into geofence_alarm (enterprise_id, id, geofence_id, geofence_name, \
               vehicle_id, plate_number, org_id, kind, alarm_time, lat, lng, speed_dkmh, limit_kmh, \
               max_stay_minutes) \
             select $1, * from unnest($2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], \
               $7::uuid[], $8::int2[], $9::timestamptz[], $10::float8[], $11::float8[], \
               $12::int4[], $13::int4[], $14::int4[]) \
             on conflict do nothing returning id",
        )
        .bind(enterprise)
        .bind(&self.id)
        .bind(&self.fence)
        .bind(&self.name)
        .bind(&self.vehicle)
        .bind(&self.plate)
        .bind(&self.org)
        .bind(&self.kind)
        .bind(&self.at)
        .bind(&self.lat)
        .bind(&self.lng)
        .bind(&self.speed)
        .bind(&self.limit)
        .bind(&self.max_stay)
        .fetch_all(conn)
        .await?;
        Ok(new.len())
    }
}

#[derive(Debug, Default)]
struct SignInRows {
    crossing: Vec<Uuid>,
    fence: Vec<Uuid>,
    name: Vec<String>,
    vehicle: Vec<Uuid>,
    plate: Vec<String>,
    org: Vec<Uuid>,
    at: Vec<DateTime<Utc>>,
    lat: Vec<f64>,
    lng: Vec<f64>,
}

impl SignInRows {
    fn push(&mut self, crossing: Uuid, v: &VehicleRow, fence: &Fence, at: &Fix) {
        self.crossing.push(crossing);
        self.fence.push(fence.id);
        self.name.push(fence.name.clone());
        self.vehicle.push(v.id);
        self.plate.push(v.plate_number.clone());
        self.org.push(v.org_id);
        self.at.push(at.time);
        self.lat.push(at.lat);
        self.lng.push(at.lng);
    }

    async fn write(self, conn: &mut PgConnection, enterprise: Uuid) -> Result<usize, ServiceError> {
        if self.crossing.is_empty() {
            return Ok(0);
        }
        let ids: Vec<Uuid> = self
            .crossing
            .iter()
            .map(|c| key_id(&format!("fleetdesk:sign-in:{c}")))
            .collect();
        let new: Vec<Uuid> = sqlx::query_scalar(
            "insert into sign_in (enterprise_id, id, crossing_id, geofence_id, point_name, \
               vehicle_id, plate_number, org_id, sign_time, lat, lng) \
             select $1, * from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::uuid[], \
               $7::text[], $8::uuid[], $9::timestamptz[], $10::float8[], $11::float8[]) \
             on conflict do nothing returning id",
        )
        .bind(enterprise)
        .bind(&ids)
        .bind(&self.crossing)
        .bind(&self.fence)
        .bind(&self.name)
        .bind(&self.vehicle)
        .bind(&self.plate)
        .bind(&self.org)
        .bind(&self.at)
        .bind(&self.lat)
        .bind(&self.lng)
        .fetch_all(conn)
        .await?;
        Ok(new.len())
    }
}
