//! The live feed behind the monitoring map's SSE stream. One hub per
//! enterprise with watchers subscribes to that enterprise's fixes on core
//! NATS (`telemetry.<enterprise>.*`; the stream's subjects reach plain
//! subscribers too, so every replica sees every fix, whichever replica
//! stores it), decodes each fix once, keeps the newest per vehicle, and
//! every [`TICK`] hands the batch to its watchers. Each watcher (one
//! `WatchPositions` call) keeps what its reach and organisation filter
//! allow, resolved again every [`REFRESH`] as the hub's vehicles are: a map
//! left open follows units added under a subtree and vehicles moved into
//! them. A hub without watchers stops.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::reach::{Reach, ResolvedReach};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::vehicle::v1 as pb;
use futures::StreamExt as _;
use prost::Message as _;
use sqlx_postgres::PgPool;
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use super::domain::{self, PositionStatus};

/// How often a hub hands out what arrived.
pub const TICK: Duration = Duration::from_millis(250);
/// How often a hub reads its vehicles again (plates, organisations move),
/// and a watcher its reach and filter.
pub const REFRESH: Duration = Duration::from_secs(60);
/// A hub with no watcher for this long stops.
const IDLE: Duration = Duration::from_secs(30);

/// One position as a hub hands it out, with what reach checks read.
#[derive(Debug, Clone)]
pub struct LivePosition {
    pub org_id: Uuid,
    pub created_by: Option<Uuid>,
    pub position: pb::VehiclePosition,
}

type Batch = Arc<Vec<LivePosition>>;

/// Every hub of this process.
#[derive(Debug, Clone)]
pub struct Live {
    nats: async_nats::Client,
    pool: PgPool,
    hubs: Arc<Mutex<HashMap<Uuid, broadcast::Sender<Batch>>>>,
    refresh: Duration,
}

#[derive(Debug, sqlx::FromRow)]
struct KnownRow {
    id: Uuid,
    org_id: Uuid,
    org_name: String,
    created_by: Option<Uuid>,
    plate_number: String,
    driver_name: Option<String>,
}

/// What a hub knows of a vehicle.
#[derive(Debug, Clone)]
struct Known {
    org_id: Uuid,
    org_name: String,
    created_by: Option<Uuid>,
    plate_number: String,
    driver_name: String,
    last_fix: Option<DateTime<Utc>>,
    soc: Option<i32>,
    charging: bool,
}

impl Live {
    pub fn new(nats: async_nats::Client, pool: PgPool) -> Live {
        Live {
            nats,
            pool,
            hubs: Arc::new(Mutex::new(HashMap::new())),
            refresh: REFRESH,
        }
    }

    /// The same with another [`REFRESH`] period (tests).
    pub fn refreshing_every(self, refresh: Duration) -> Live {
        Live { refresh, ..self }
    }

    /// Subscribes to `enterprise`'s batches, starting its hub if needed. A
    /// new hub's NATS subscription is in place (flushed) before this
    /// returns, so a fix published after a watch began is never missed.
    async fn subscribe(
        &self,
        enterprise: Uuid,
    ) -> Result<broadcast::Receiver<Batch>, ServiceError> {
        if let Some(sender) = self
            .hubs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&enterprise)
        {
            return Ok(sender.subscribe());
        }
        let unavailable = |e: &dyn std::fmt::Display| {
            tracing::warn!(error = %e, "Live feed: NATS unavailable.");
            ServiceError::of(fleetdesk_kit::ErrorCode::Unavailable)
        };
        let fixes = self
            .nats
            .subscribe(format!("telemetry.{enterprise}.*"))
            .await
            .map_err(|e| unavailable(&e))?;
        self.nats.flush().await.map_err(|e| unavailable(&e))?;
        let mut hubs = self.hubs.lock().unwrap_or_else(|p| p.into_inner());
        // Another watcher may have started the hub meanwhile.
        if let Some(sender) = hubs.get(&enterprise) {
            return Ok(sender.subscribe());
        }
        let (sender, receiver) = broadcast::channel(64);
        hubs.insert(enterprise, sender.clone());
        let live = self.clone();
        tokio::spawn(async move {
            if let Err(err) = live.run_hub(enterprise, fixes, &sender).await {
                tracing::warn!(%enterprise, error = %format!("{err:#}"), "Live hub stopped.");
                live.retire(enterprise, &sender, true);
            }
        });
        Ok(receiver)
    }

    async fn run_hub(
        &self,
        enterprise: Uuid,
        mut fixes: async_nats::Subscriber,
        sender: &broadcast::Sender<Batch>,
    ) -> anyhow::Result<()> {
        let mut known = self.load(enterprise, None).await?;
        // Vehicles looked up and not found (deleted, or another
        // deployment's on a shared server), until the next refresh.
        let mut unknown: HashMap<Uuid, Instant> = HashMap::new();
        let mut loaded_at = Instant::now();
        let mut pending: HashMap<Uuid, LivePosition> = HashMap::new();
        let mut tick = tokio::time::interval(TICK);
        let mut idle_since: Option<Instant> = None;
        loop {
            tokio::select! {
                message = fixes.next() => {
                    let Some(message) = message else { return Ok(()) };
                    let Ok(fix) = tpb::Fix::decode(message.payload.as_ref()) else { continue };
                    let Ok(vehicle) = Uuid::parse_str(&fix.vehicle_id) else { continue };
                    let missing = !known.contains_key(&vehicle)
                        && unknown.get(&vehicle).is_none_or(|at| at.elapsed() >= self.refresh);
                    if missing {
                        let found = self.load(enterprise, Some(vehicle)).await?;
                        if found.is_empty() {
                            unknown.insert(vehicle, Instant::now());
                        }
                        known.extend(found);
                    }
                    let Some(entry) = known.get_mut(&vehicle) else { continue };
                    if let Some(live) = apply(entry, vehicle, enterprise, &fix) {
                        pending.insert(vehicle, live);
                    }
                }
                _ = tick.tick() => {
                    if sender.receiver_count() == 0 {
                        let since = *idle_since.get_or_insert_with(Instant::now);
                        if since.elapsed() >= IDLE && self.retire(enterprise, sender, false) {
                            return Ok(());
                        }
                    } else {
                        idle_since = None;
                    }
                    if !pending.is_empty() {
                        let batch: Vec<LivePosition> = pending.drain().map(|(_, p)| p).collect();
                        // No watcher right now is not an error.
                        let _ = sender.send(Arc::new(batch));
                    }
                    if loaded_at.elapsed() >= self.refresh {
                        let fresh = self.load(enterprise, None).await?;
                        for (id, mut entry) in fresh {
                            if let Some(old) = known.get(&id) {
                                entry.last_fix = old.last_fix;
                                entry.soc = old.soc;
                                entry.charging = old.charging;
                            }
                            known.insert(id, entry);
                        }
                        loaded_at = Instant::now();
                    }
                }
            }
        }
    }

    /// Removes an idle hub unless a watcher came in meanwhile (or, when
    /// `failed`, in any case: its watchers' streams end).
    fn retire(&self, enterprise: Uuid, sender: &broadcast::Sender<Batch>, failed: bool) -> bool {
        let mut hubs = self.hubs.lock().unwrap_or_else(|p| p.into_inner());
        if !failed && sender.receiver_count() > 0 {
            return false;
        }
        if hubs
            .get(&enterprise)
            .is_some_and(|s| s.same_channel(sender))
        {
            hubs.remove(&enterprise);
        }
        true
    }

    /// The enterprise's vehicles, or just `one` of them.
    async fn load(
        &self,
        enterprise: Uuid,
        one: Option<Uuid>,
    ) -> Result<HashMap<Uuid, Known>, ServiceError> {
        let mut tx = db::begin_tenant(&self.pool, enterprise).await?;
        let rows: Vec<KnownRow> =
            sqlx::query_as(
                "select v.id, v.org_id, coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name, \
                 v.created_by, v.plate_number, v.driver_name from vehicle v \
                 where v.enterprise_id = $1 and ($2::uuid is null or v.id = $2)",
            )
            .bind(enterprise)
            .bind(one)
            .fetch_all(&mut *tx)
            .await?;
        db::end_read(tx);
        Ok(rows
            .into_iter()
            .map(|r| {
                (
                    r.id,
                    Known {
                        org_id: r.org_id,
                        org_name: r.org_name,
                        created_by: r.created_by,
                        plate_number: r.plate_number,
                        driver_name: r.driver_name.unwrap_or_default(),
                        last_fix: None,
                        soc: None,
                        charging: false,
                    },
                )
            })
            .collect())
    }

    /// What `reach` sees now, and the organisations `requested` (with
    /// their subtrees; empty: no filter).
    async fn sight(
        &self,
        enterprise: Uuid,
        reach: &Reach,
        requested: &[Uuid],
    ) -> Result<Sight, ServiceError> {
        let mut tx = db::begin_tenant(&self.pool, enterprise).await?;
        let reach = reach.resolve(&mut tx).await?;
        let orgs =
            fleetdesk_assets::vehicles::store::org_subtrees(&mut tx, requested.to_vec()).await?;
        db::end_read(tx);
        Ok(Sight {
            reach,
            orgs,
            at: Instant::now(),
        })
    }

    /// Streams `enterprise`'s positions the caller may see (and, when
    /// `requested` is not empty, of those organisations' subtrees) until the
    /// receiver of the returned channel is dropped.
    pub async fn watch(
        &self,
        enterprise: Uuid,
        reach: Reach,
        requested: Vec<Uuid>,
    ) -> Result<mpsc::Receiver<Result<pb::WatchPositionsResponse, tonic::Status>>, ServiceError>
    {
        let mut sight = self.sight(enterprise, &reach, &requested).await?;
        let mut batches = self.subscribe(enterprise).await?;
        let (out, receiver) = mpsc::channel(16);
        let live = self.clone();
        tokio::spawn(async move {
            loop {
                let batch = tokio::select! {
                    batch = batches.recv() => batch,
                    () = out.closed() => return,
                };
                let batch = match batch {
                    Ok(batch) => batch,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(
                            missed,
                            "Live watcher fell behind; newer positions follow."
                        );
                        continue;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if sight.at.elapsed() >= live.refresh {
                    match live.sight(enterprise, &reach, &requested).await {
                        Ok(fresh) => sight = fresh,
                        Err(err) => {
                            // The last one holds until the next refresh.
                            sight.at = Instant::now();
                            tracing::warn!(error = %err, "Live watcher kept its reach.");
                        }
                    }
                }
                let positions: Vec<pb::VehiclePosition> = batch
                    .iter()
                    .filter(|p| sight.sees(p))
                    .map(|p| p.position.clone())
                    .collect();
                if positions.is_empty() {
                    continue;
                }
                if out
                    .send(Ok(pb::WatchPositionsResponse { positions }))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        });
        Ok(receiver)
    }
}

/// What one watcher may see, as resolved at `at`.
struct Sight {
    reach: ResolvedReach,
    /// The organisation filter, subtrees expanded (empty: none).
    orgs: Vec<Uuid>,
    at: Instant,
}

impl Sight {
    fn sees(&self, p: &LivePosition) -> bool {
        self.reach.sees(Some(p.org_id), p.created_by)
            && (self.orgs.is_empty() || self.orgs.contains(&p.org_id))
    }
}

/// Takes a fix into a vehicle's state; the live position when it is newer
/// than what the map shows (late and backfilled fixes are history only).
fn apply(
    entry: &mut Known,
    vehicle: Uuid,
    enterprise: Uuid,
    fix: &tpb::Fix,
) -> Option<LivePosition> {
    let at = fix.fix_time.as_ref().and_then(datetime)?;
    if fix.backfill || entry.last_fix.is_some_and(|last| last >= at) {
        return None;
    }
    let soc = fix.soc_percent;
    // The ingest's rule (store::upsert_latest).
    entry.charging = fix.speed_dkmh == 0
        && matches!((soc, entry.soc), (Some(now), Some(before))
            if now > before || (now == before && entry.charging));
    entry.soc = soc;
    entry.last_fix = Some(at);
    let now = Utc::now();
    let status = domain::status(
        now,
        at,
        i64::from(fix.alarm_bits),
        entry.charging,
        fix.speed_dkmh,
    );
    let position = pb::VehiclePosition {
        vehicle_id: vehicle.to_string(),
        enterprise_id: enterprise.to_string(),
        plate_number: entry.plate_number.clone(),
        point: Some(common::GeoPoint {
            longitude: fix.longitude,
            latitude: fix.latitude,
        }),
        address: String::new(),
        speed_kmh: f64::from(fix.speed_dkmh) / 10.0,
        heading_deg: fix.heading,
        altitude_m: f64::from(fix.altitude_m),
        odometer_m: fix.mileage_m.unwrap_or(0),
        soc_percent: soc,
        acc_on: fix.status_bits & 1 == 1,
        online: status != PositionStatus::Offline,
        gps_time: Some(timestamp(at)),
        receive_time: fix.receive_time,
        org_id: entry.org_id.to_string(),
        org_name: entry.org_name.clone(),
        driver_name: entry.driver_name.clone(),
        temperatures: fix
            .temperatures
            .iter()
            .map(|t| pb::ProbeTemperature {
                probe: t.probe,
                celsius: f64::from(t.deci_celsius) / 10.0,
            })
            .collect(),
        alarm_bits: fix.alarm_bits,
        status_bits: fix.status_bits,
        status: status.pb(),
        charging: entry.charging,
        mileage_m: fix.mileage_m,
    };
    Some(LivePosition {
        org_id: entry.org_id,
        created_by: entry.created_by,
        position,
    })
}
