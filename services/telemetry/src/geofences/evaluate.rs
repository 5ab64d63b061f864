//! Evaluation of a batch's new fixes against the fences, inside ingest's
//! transaction ([`evaluate`]; see `crate::ingest`): the fixes are already in
//! the position history, which is also what a replay reads.
//!
//! Per enterprise, with the transaction scoped to it:
//! 1. the enterprise's R-tree comes from [`FenceCache`], rebuilt when the
//!    enterprise's `geofence_version` moved (any process changed a fence);
//!    an enterprise without fences is done;
//! 2. ingest has locked each vehicle's latest position and hands over where
//!    it was before the batch — the fix the new ones follow — so two
//!    batches never interleave one vehicle; only fixes new to the history
//!    come here (a redelivery or a terminal's resend changes nothing);
//! 3. a vehicle whose new fixes all follow that fix runs them through its
//!    live states (inside or pending) and the fences its fixes hit;
//! 4. a vehicle with a fix not after it (late, or a blind-zone backfill) is
//!    *replayed*: for each fence that fix may affect — hit by a stored fix
//!    from then on, live, or crossed with a confirmation from then on — its
//!    state is rebuilt from its last crossing confirmed before that fix
//!    (exact: right after a confirmation the side is known and nothing is
//!    pending), every stored fix after that confirmation runs through it
//!    again, and the crossings after the anchor are reconciled: ones the
//!    replay no longer finds are removed, new ones written (so are overstay
//!    alarms of stays from the anchor's crossing on). Speeding alarms from
//!    the late fix on are reconciled the same way (they depend only on a fix
//!    and the one before it). Ids derive from each row's natural key, so a
//!    row found again is the same row — written once.
//!
//! The result equals an in-order run over the same fixes; a replay reads at
//! most [`REPLAY_HOURS`] of history before the late fix.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{AlarmKind, Direction, Purpose};
use super::engine::{self, Crossing, Fence, FenceIndex, FenceState, Fix, Overstay, Pending};
use super::{convert, store};

/// How far back from now a replay reads the history (a vehicle without a
/// crossing confirmed since replays all of it): a backfill older than this
/// replays from what is left, as the history's retention would.
pub const REPLAY_HOURS: i64 = 48;

/// One vehicle's fixes new in this batch, in time order, and the fix they
/// follow (its latest position before the batch, if it had one).
#[derive(Debug, Clone, Default)]
pub struct VehicleFixes {
    pub previous: Option<Fix>,
    pub fixes: Vec<Fix>,
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

impl Summary {
    pub fn add(&mut self, other: Summary) {
        self.fixes += other.fixes;
        self.crossings += other.crossings;
        self.alarms += other.alarms;
        self.sign_ins += other.sign_ins;
        self.replays += other.replays;
    }
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

/// Evaluates one enterprise's new fixes in the caller's transaction, which
/// is scoped to that enterprise (`db::enter_tenant`), holds the vehicles'
/// latest positions locked and has stored the fixes in the history.
/// `index` is the enterprise's (from [`FenceCache::index`] in the same
/// transaction).
pub async fn evaluate(
    conn: &mut PgConnection,
    index: &FenceIndex,
    enterprise: Uuid,
    vehicles: BTreeMap<Uuid, VehicleFixes>,
) -> Result<Evaluated, ServiceError> {
    if index.is_empty() {
        return Ok(Evaluated::default());
    }
    Enterprise {
        id: enterprise,
        index,
    }
    .apply(conn, vehicles)
    .await
}

/// What [`evaluate`] did, and to whom.
#[derive(Debug, Default)]
pub struct Evaluated {
    pub summary: Summary,
    /// The crossings found after each in-order vehicle's previous fix: its
    /// only new ones (an in-order run never moves or removes a crossing).
    pub crossings: Vec<(Uuid, Crossing)>,
    /// Vehicles replayed for a late fix: their stored crossings from the
    /// late fix on may have moved, appeared or gone.
    pub replayed: BTreeSet<Uuid>,
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

/// A stored fix as evaluation reads it back.
#[derive(Debug, Clone, sqlx::FromRow)]
struct FixRow {
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
        vehicles: BTreeMap<Uuid, VehicleFixes>,
    ) -> Result<Evaluated, ServiceError> {
        let mut writes = Writes::default();
        let (mut in_order, mut late) = (BTreeMap::new(), Vec::new());
        for (vehicle, input) in vehicles {
            let Some(first) = input.fixes.first().map(|f| f.time) else {
                continue;
            };
            writes.fixes += input.fixes.len();
            match input.previous {
                Some(previous) if first <= previous.time => late.push((vehicle, first)),
                _ => {
                    in_order.insert(vehicle, input);
                }
            }
        }
        self.run_in_order(conn, in_order, &mut writes).await?;
        let crossings = writes.crossings.clone();
        let mut replayed = BTreeSet::new();
        for (vehicle, from) in late {
            writes.replays += 1;
            replayed.insert(vehicle);
            self.replay(conn, vehicle, from, &mut writes).await?;
        }
        Ok(Evaluated {
            summary: self.write(conn, writes).await?,
            crossings,
            replayed,
        })
    }

    /// Fixes after each vehicle's previous one, through its live states and
    /// the fences they hit.
    async fn run_in_order(
        &self,
        conn: &mut PgConnection,
        vehicles: BTreeMap<Uuid, VehicleFixes>,
        writes: &mut Writes,
    ) -> Result<(), ServiceError> {
        if vehicles.is_empty() {
            return Ok(());
        }
        let ids: Vec<Uuid> = vehicles.keys().copied().collect();
        let live = live_states(conn, &ids).await?;
        for (vehicle, VehicleFixes { previous, fixes }) in vehicles {
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
            for s in engine::speeding(self.index, vehicle, previous.as_ref(), &fixes) {
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
        let since_late = stored(conn, vehicle, from, Some(from), true).await?;
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
            stored(conn, vehicle, from, earliest, false).await?
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
            "select fix_time, lat, lng, speed_dkmh from position \
             where vehicle_id = $1 and fix_time < $2 and fix_time >= $3 \
             order by fix_time desc limit 1",
        )
        .bind(vehicle)
        .bind(from)
        .bind(from - Duration::hours(REPLAY_HOURS))
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
        writes: Writes,
    ) -> Result<Summary, ServiceError> {
        let mut summary = Summary {
            fixes: writes.fixes,
            replays: writes.replays,
            ..Summary::default()
        };
        let vehicles = self.vehicles_of(conn, &writes).await?;
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

impl Enterprise<'_> {
    /// Plate and organisation of the vehicles that have rows to write (few:
    /// most fixes cross nothing).
    async fn vehicles_of(
        &self,
        conn: &mut PgConnection,
        writes: &Writes,
    ) -> Result<HashMap<Uuid, VehicleRow>, ServiceError> {
        let mut ids: Vec<Uuid> = writes
            .crossings
            .iter()
            .map(|(v, _)| *v)
            .chain(writes.speeding.iter().map(|(v, _)| *v))
            .chain(writes.overstays.iter().map(|(v, _)| *v))
            .collect();
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        ids.sort_unstable();
        ids.dedup();
        let rows: Vec<VehicleRow> = sqlx::query_as(
            "select id, plate_number, org_id from vehicle where enterprise_id = $1 and id = any($2)",
        )
        .bind(self.id)
        .bind(&ids)
        .fetch_all(conn)
        .await?;
        Ok(rows.into_iter().map(|v| (v.id, v)).collect())
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

/// A vehicle's stored fixes in time order, from `after` (inclusive) or
/// after it (exclusive); all of them when `None` — never more than
/// [`REPLAY_HOURS`] before the late fix at `late`.
async fn stored(
    conn: &mut PgConnection,
    vehicle: Uuid,
    late: DateTime<Utc>,
    after: Option<DateTime<Utc>>,
    inclusive: bool,
) -> Result<Vec<Fix>, ServiceError> {
    let floor = late - Duration::hours(REPLAY_HOURS);
    let (from, inclusive) = match after {
        Some(after) if after >= floor => (after, inclusive),
        _ => (floor, true),
    };
    let rows: Vec<FixRow> = sqlx::query_as(
        "select fix_time, lat, lng, speed_dkmh from position \
         where vehicle_id = $1 and fix_time >= $2 and (fix_time > $2 or $3) \
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
