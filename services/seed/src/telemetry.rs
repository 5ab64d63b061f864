//! Demo telemetry of enterprise A: fences around the depots and customer
//! sites of four of its cities, temperature bands on its refrigerated vans,
//! and three weeks of delivery rounds of a subset of its fleet.
//!
//! The rounds go through telemetry ingest's own pipeline
//! (`ingest::consumer::Pipeline`, a day per batch, oldest first), so the
//! position history, latest positions, probe readings, crossings, sign-ins,
//! fence alarms and temperature alarms are exactly what evaluation finds in
//! them. Fences and bands are written by telemetry's own stores.
//!
//! Bands follow the simulator (`fleetdesk simulate`, seed 808): a van's
//! band is the one around the set point the simulator gives its box, so the
//! live readings of `make run` stay inside it but for the simulator's own
//! excursions.
//!
//! Deterministic (ids from `kit::demo_id`, a generator seeded per vehicle
//! and day; the days before the run's, up to its `now`) and idempotent:
//! when the first demo fence exists everything is skipped, so a later run
//! leaves the history to the simulator.

use std::time::Instant;

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, TimeZone, Utc};
use fleetdesk_kit::{db, demo_id};
use fleetdesk_telemetry::geofences::domain::{GeofenceDraft, GeofenceFields, Purpose, Shape};
use fleetdesk_telemetry::geofences::geometry::Point;
use fleetdesk_telemetry::geofences::store as fences;
use fleetdesk_telemetry::ingest::consumer::Pipeline;
use fleetdesk_telemetry::ingest::domain::FixRow;
use fleetdesk_telemetry::temperature::domain::Band;
use fleetdesk_telemetry::temperature::store as temperatures;
use rand::rngs::StdRng;
use rand::{Rng as _, SeedableRng as _};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::vehicle::Rng;

/// Days of rounds before today (today's rounds up to now come on top).
pub const HISTORY_DAYS: i64 = 21;
/// Days (today included) whose rounds report at the terminals' full rate.
const DETAILED_DAYS: i64 = 3;

/// Fix intervals, seconds: driving and standing, on detailed days and before.
const DRIVE_EVERY_RECENT: i64 = 30;
const DRIVE_EVERY_OLDER: i64 = 120;
const STAND_EVERY_RECENT: i64 = 300;
const STAND_EVERY_OLDER: i64 = 600;

/// JT/T 808 status bits: ACC on, positioned.
const STATUS_ACC_ON: i64 = 0b01;
const STATUS_POSITIONED: i64 = 0b10;

/// What a fence is for, in the demo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The city's depot: a polygon with a yard speed limit.
    Depot,
    /// A customer's sign-in point (circle).
    Customer,
    /// A warehouse (circle) that alarms on entry and on long stays.
    Warehouse,
}

/// A site of a city: (key, name, address, role, lat, lng, radius or half
/// size in metres).
type Site = (
    &'static str,
    &'static str,
    &'static str,
    Role,
    f64,
    f64,
    f64,
);

/// A city of the demo rounds: its organisation (org seed key), the plate
/// prefix of its vehicles, how many vehicles drive rounds, and its sites
/// (the depot first).
struct City {
    org: &'static str,
    plate_prefix: &'static str,
    vehicles: usize,
    sites: [Site; 4],
}

const CITIES: [City; 4] = [
    City {
        org: "a-shanghai",
        plate_prefix: "沪",
        vehicles: 8,
        sites: [
            (
                "sh-depot",
                "上海浦东配送中心",
                "上海市浦东新区川沙路1888号",
                Role::Depot,
                31.2180,
                121.6350,
                220.0,
            ),
            (
                "sh-hema",
                "盒马鲜生（张江店）签到点",
                "上海市浦东新区张江路368号",
                Role::Customer,
                31.2040,
                121.5900,
                150.0,
            ),
            (
                "sh-lianhua",
                "联华超市（世纪大道店）签到点",
                "上海市浦东新区世纪大道1168号",
                Role::Customer,
                31.2290,
                121.5260,
                150.0,
            ),
            (
                "sh-waigaoqiao",
                "外高桥保税仓",
                "上海市浦东新区富特北路456号",
                Role::Warehouse,
                31.3400,
                121.5900,
                300.0,
            ),
        ],
    },
    City {
        org: "a-hangzhou",
        plate_prefix: "浙A",
        vehicles: 4,
        sites: [
            (
                "hz-depot",
                "杭州西湖配送中心",
                "浙江省杭州市西湖区留下街道屏峰路88号",
                Role::Depot,
                30.3000,
                120.0600,
                200.0,
            ),
            (
                "hz-wumart",
                "物美超市（文三路店）签到点",
                "浙江省杭州市西湖区文三路259号",
                Role::Customer,
                30.2780,
                120.1330,
                150.0,
            ),
            (
                "hz-crv",
                "华润万家（滨江店）签到点",
                "浙江省杭州市滨江区江南大道588号",
                Role::Customer,
                30.2100,
                120.2100,
                150.0,
            ),
            (
                "hz-xiasha",
                "下沙冷链仓",
                "浙江省杭州市钱塘区下沙路600号",
                Role::Warehouse,
                30.3100,
                120.3500,
                300.0,
            ),
        ],
    },
    City {
        org: "a-guangzhou",
        plate_prefix: "粤A",
        vehicles: 4,
        sites: [
            (
                "gz-depot",
                "广州白云配送中心",
                "广东省广州市白云区太和镇物流园大道18号",
                Role::Depot,
                23.2300,
                113.2800,
                220.0,
            ),
            (
                "gz-yonghui",
                "永辉超市（天河店）签到点",
                "广东省广州市天河区天河路208号",
                Role::Customer,
                23.1350,
                113.3300,
                150.0,
            ),
            (
                "gz-qdm",
                "钱大妈（海珠店）签到点",
                "广东省广州市海珠区江南大道中166号",
                Role::Customer,
                23.0980,
                113.3100,
                150.0,
            ),
            (
                "gz-huangpu",
                "黄埔港仓库",
                "广东省广州市黄埔区港前路531号",
                Role::Warehouse,
                23.0900,
                113.4500,
                300.0,
            ),
        ],
    },
    City {
        org: "a-shenzhen",
        plate_prefix: "粤B",
        vehicles: 4,
        sites: [
            (
                "sz-depot",
                "深圳宝安配送中心",
                "广东省深圳市宝安区航城大道168号",
                Role::Depot,
                22.5800,
                113.8800,
                220.0,
            ),
            (
                "sz-rainbow",
                "天虹超市（南山店）签到点",
                "广东省深圳市南山区南海大道2163号",
                Role::Customer,
                22.5300,
                113.9300,
                150.0,
            ),
            (
                "sz-walmart",
                "沃尔玛（福田店）签到点",
                "广东省深圳市福田区农林路69号",
                Role::Customer,
                22.5400,
                114.0500,
                150.0,
            ),
            (
                "sz-yantian",
                "盐田港冷库",
                "广东省深圳市盐田区深盐路2001号",
                Role::Warehouse,
                22.5800,
                114.2600,
                300.0,
            ),
        ],
    },
];

/// The id of a demo fence.
pub fn fence_id(key: &str) -> Uuid {
    demo_id(&format!("geofence:a:{key}"))
}

const METRES_PER_DEGREE: f64 = 111_320.0;

/// A point `east` and `north` metres from (lat, lng).
fn offset(lat: f64, lng: f64, east: f64, north: f64) -> (f64, f64) {
    (
        lat + north / METRES_PER_DEGREE,
        lng + east / (METRES_PER_DEGREE * lat.to_radians().cos()),
    )
}

/// Metres between two points (flat, fine at city scale).
fn distance_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let dy = (b.0 - a.0) * METRES_PER_DEGREE;
    let dx = (b.1 - a.1) * METRES_PER_DEGREE * a.0.to_radians().cos();
    dx.hypot(dy)
}

fn heading(a: (f64, f64), b: (f64, f64)) -> i16 {
    let dy = b.0 - a.0;
    let dx = (b.1 - a.1) * a.0.to_radians().cos();
    dx.atan2(dy).to_degrees().rem_euclid(360.0).round() as i16 % 360
}

fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

fn fields(org: Uuid, site: &Site) -> GeofenceFields {
    let (_, name, address, role, lat, lng, size) = *site;
    let base = GeofenceFields {
        org_id: org.to_string(),
        name: name.to_owned(),
        address: address.to_owned(),
        all_vehicles: true,
        enabled: true,
        ..GeofenceFields::default()
    };
    match role {
        Role::Depot => {
            // The yard: a slightly skewed quadrilateral around the gate.
            let corners = [(-1.0, -0.8), (1.1, -0.7), (0.9, 0.9), (-1.0, 0.7)];
            GeofenceFields {
                purpose: Some(Purpose::General),
                shape: Some(Shape::Polygon),
                points: corners
                    .iter()
                    .map(|(e, n)| {
                        let (lat, lng) = offset(lat, lng, e * size, n * size);
                        Point { lat, lng }
                    })
                    .collect(),
                speed_limit_kmh: Some(15),
                dwell_seconds: 30,
                ..base
            }
        }
        Role::Customer => GeofenceFields {
            purpose: Some(Purpose::SignIn),
            shape: Some(Shape::Circle),
            center: Some(Point { lat, lng }),
            radius_m: size as i32,
            ..base
        },
        Role::Warehouse => GeofenceFields {
            purpose: Some(Purpose::General),
            shape: Some(Shape::Circle),
            center: Some(Point { lat, lng }),
            radius_m: size as i32,
            alert_on_enter: true,
            max_dwell_minutes: 60,
            ..base
        },
    }
}

/// A vehicle of the rounds.
#[derive(Debug, Clone)]
struct Driven {
    id: Uuid,
    city: usize,
    /// The simulator's box set point, for a refrigerated van.
    setpoint: Option<f64>,
    /// The odometer, carried from day to day.
    mileage_m: f64,
}

/// A vehicle the simulator drives: its position in the simulator's fleet
/// (which seeds its behaviour), and whether it keeps a cold box.
#[derive(Debug, Clone)]
struct Simulated {
    id: Uuid,
    enterprise_id: Uuid,
    plate: String,
    index: usize,
    refrigerated: bool,
}

/// How many vehicles `make run` simulates (`FLEETDESK_SIMULATE_VEHICLES`'s default).
const SIMULATED: i64 = 2_000;
/// The simulator's default seed.
const SIMULATOR_SEED: u64 = 808;

/// The fleet as the simulator reads it (`fleetdesk_simulator::load_fleet`:
/// active terminal bindings in enterprise and plate order, a terminal
/// phone a JT/T 808 header can carry, refrigerated trucks and one van in
/// five).
async fn simulated_fleet(pool: &PgPool) -> anyhow::Result<Vec<Simulated>> {
    let mut tx = db::begin_service(pool).await?;
    let rows: Vec<(Uuid, Uuid, String, i16, String, String)> = sqlx::query_as(
        "select v.id, v.enterprise_id, v.plate_number, v.category, b.target_id, b.terminal_sim \
         from vehicle_binding b join vehicle v on v.id = b.vehicle_id \
         where b.kind = 3 and b.unbound_at is null \
         order by v.enterprise_id, v.plate_number limit $1",
    )
    .bind(SIMULATED)
    .fetch_all(&mut *tx)
    .await?;
    db::end_read(tx);
    Ok(rows
        .into_iter()
        .filter(|(_, _, _, _, terminal, sim)| {
            [sim.trim(), terminal.trim()]
                .into_iter()
                .any(|p| !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit()))
        })
        .enumerate()
        .map(
            |(index, (id, enterprise_id, plate, category, _, _))| Simulated {
                refrigerated: category == 6 || (category == 5 && id.as_u128() % 5 == 0),
                id,
                enterprise_id,
                plate,
                index,
            },
        )
        .collect())
}

/// The box set point the simulator gives the van at `index` of its fleet:
/// its generators drawn in the simulator's order (`Terminal::new`, then
/// `Motion::new`: the route's stops, the start, the mode, the set point).
/// Drawn here rather than by the simulator, which is no dependency of the
/// seed; `tests/seed/telemetry.rs` holds the two together.
pub fn simulated_setpoint(index: usize) -> f64 {
    let mut terminal =
        StdRng::seed_from_u64(SIMULATOR_SEED ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut rng = StdRng::seed_from_u64(terminal.r#gen::<u64>());
    let stops: i32 = rng.gen_range(6..10);
    for _ in 0..stops {
        let _radius: f64 = rng.gen_range(2_000.0..15_000.0);
        let _angle: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
    }
    let _at: usize = rng.gen_range(0..stops as usize);
    match rng.gen_range(0..10) {
        0..=2 => {
            let _ticks: u32 = rng.gen_range(1_500..6_000);
        }
        6..=8 => {
            let _ticks: u32 = rng.gen_range(3..60);
        }
        _ => {}
    }
    if rng.gen_bool(0.6) { -18.0 } else { 4.0 }
}

/// The band of a box kept at `setpoint`: frozen -22..-15 °C, chilled
/// 0..8 °C, an alarm after five minutes outside.
fn band_for(setpoint: f64) -> Band {
    if setpoint < 0.0 {
        Band {
            min_deci: -220,
            max_deci: -150,
            min_duration_s: 300,
        }
    } else {
        Band {
            min_deci: 0,
            max_deci: 80,
            min_duration_s: 300,
        }
    }
}

/// What [`run`] wrote.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub fences: usize,
    pub bands: usize,
    pub vehicles: usize,
    pub fixes: usize,
    pub crossings: usize,
    pub temperature_alarms: usize,
    /// Risk alarms moved through the workflow (handled, dismissed, assigned).
    pub alarms_worked: usize,
    pub seconds: f64,
}

/// Loads enterprise A's demo telemetry (idempotent); `now` bounds the
/// history (nothing after it).
pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let started = Instant::now();
    // Fences and bands name the demo admin as who set them.
    let actor = crate::demo_admin();
    let eid = actor.enterprise_id;
    let fleet = simulated_fleet(pool).await?;
    let mut tx = db::begin_tenant(pool, eid).await?;
    let seeded: bool = sqlx::query_scalar("select exists(select 1 from geofence where id = $1)")
        .bind(fence_id(CITIES[0].sites[0].0))
        .fetch_one(&mut *tx)
        .await?;
    if seeded {
        tracing::info!("Demo telemetry already there.");
        return Ok(Report::default());
    }
    let mut report = Report::default();

    // Bands on every refrigerated van the simulator drives.
    let mut setpoints = std::collections::HashMap::new();
    for v in fleet
        .iter()
        .filter(|v| v.enterprise_id == eid && v.refrigerated)
    {
        let setpoint = simulated_setpoint(v.index);
        temperatures::set_threshold(&mut tx, &actor, v.id, 0, band_for(setpoint)).await?;
        setpoints.insert(v.id, setpoint);
        report.bands += 1;
    }

    // The fences, made a month ago.
    for city in &CITIES {
        let org = demo_id(&format!("org:{}", city.org));
        for site in &city.sites {
            let draft = GeofenceDraft::parse(fields(org, site))
                .map_err(|e| anyhow::anyhow!("demo fence {}: {e:?}", site.0))?;
            let id = fence_id(site.0);
            fences::insert(&mut tx, &actor, id, &draft).await?;
            sqlx::query("update geofence set created_at = $2, updated_at = $2 where id = $1")
                .bind(id)
                .bind(now - Duration::days(HISTORY_DAYS + 9))
                .execute(&mut *tx)
                .await?;
            report.fences += 1;
        }
    }
    // The alarm rules, before the history runs through ingest.
    crate::risk::set_rules(&mut tx, &actor).await?;
    tx.commit().await?;

    // The rounds: per city, the first simulated vehicles by plate, refrigerated
    // vans among them (Shanghai's are the first carded ones, so charging
    // analysis finds their kilometres).
    let mut driven = Vec::new();
    for (c, city) in CITIES.iter().enumerate() {
        let of_city: Vec<&Simulated> = fleet
            .iter()
            .filter(|v| v.enterprise_id == eid && v.plate.starts_with(city.plate_prefix))
            .collect();
        let cold = city.vehicles / 4;
        let picked = of_city.iter().filter(|v| v.refrigerated).take(cold).chain(
            of_city
                .iter()
                .filter(|v| !v.refrigerated)
                .take(city.vehicles - cold),
        );
        for v in picked {
            driven.push(Driven {
                id: v.id,
                city: c,
                setpoint: setpoints.get(&v.id).copied(),
                mileage_m: 8_000_000.0 + (v.id.as_u128() % 40_000_000) as f64,
            });
        }
    }
    report.vehicles = driven.len();

    let today = now.date_naive();
    let mut pipeline = Pipeline::new(pool.clone());
    for back in (0..=HISTORY_DAYS).rev() {
        let day = today - Duration::days(back);
        let detailed = back < DETAILED_DAYS;
        let mut fixes = Vec::new();
        for (k, v) in driven.iter_mut().enumerate() {
            rounds(&mut fixes, eid, v, k, day, detailed, now);
        }
        let applied = pipeline.apply(fixes).await?;
        report.fixes += applied.stored;
        report.crossings += applied.fences.crossings;
        report.temperature_alarms += applied.temperatures.alarms;
    }
    report.alarms_worked = crate::risk::work_alarms(pool, &actor, now).await?;
    report.seconds = started.elapsed().as_secs_f64();
    tracing::info!(
        fences = report.fences,
        bands = report.bands,
        vehicles = report.vehicles,
        fixes = report.fixes,
        crossings = report.crossings,
        temperature_alarms = report.temperature_alarms,
        seconds = report.seconds,
        "Demo telemetry loaded."
    );
    Ok(report)
}

/// One vehicle's reports while it drives its day.
struct Day<'a> {
    out: &'a mut Vec<FixRow>,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
    setpoint: Option<f64>,
    rng: Rng,
    at: DateTime<Utc>,
    until: DateTime<Utc>,
    pos: (f64, f64),
    mileage_m: f64,
    soc: f64,
    drive_every: i64,
    stand_every: i64,
    /// Tenths of a degree above the set point the box is at (door open).
    warm_deci: i32,
    /// The 0x0200 alarm bits of the next report.
    alarm_bits: i64,
}

impl Day<'_> {
    fn report(&mut self, speed_kmh: f64, heading: i16) {
        if self.at > self.until {
            return;
        }
        let temperatures = match self.setpoint {
            Some(setpoint) => (1..=2)
                .map(|probe| {
                    let noise = self.rng.below(9) as i32 - 4;
                    (probe, (setpoint * 10.0) as i32 + noise + self.warm_deci)
                })
                .collect(),
            None => Vec::new(),
        };
        let moving = speed_kmh > 0.0;
        self.out.push(FixRow {
            enterprise_id: self.enterprise_id,
            vehicle_id: self.vehicle_id,
            fix_time: self.at,
            receive_time: self.at + Duration::seconds(1),
            lat: (self.pos.0 * 1e6).round() / 1e6,
            lng: (self.pos.1 * 1e6).round() / 1e6,
            altitude_m: 12,
            speed_dkmh: (speed_kmh * 10.0).round() as i32,
            heading,
            alarm_bits: std::mem::take(&mut self.alarm_bits),
            status_bits: STATUS_POSITIONED | if moving { STATUS_ACC_ON } else { 0 },
            mileage_m: Some(self.mileage_m as i64 / 100 * 100),
            soc: Some(self.soc.round().clamp(0.0, 100.0) as i16),
            temperatures,
            backfill: false,
            device_time: None,
        });
    }

    /// Drives to `to` through a bend, slowing near both ends.
    fn drive(&mut self, to: (f64, f64)) {
        let from = self.pos;
        let length = distance_m(from, to);
        // A road is no straight line: one bend off the direct line.
        let side = (self.rng.below(41) as f64 - 20.0) / 100.0 * length;
        let mid_base = ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0);
        let (dn, de) = (
            (to.0 - from.0) * METRES_PER_DEGREE,
            (to.1 - from.1) * METRES_PER_DEGREE * from.0.to_radians().cos(),
        );
        let norm = de.hypot(dn).max(1.0);
        let mid = offset(mid_base.0, mid_base.1, -dn / norm * side, de / norm * side);
        let mut speed = 30.0;
        for (a, b) in [(from, mid), (mid, to)] {
            let leg = distance_m(a, b);
            let mut done = 0.0;
            while done < leg {
                let left = leg - done;
                let near_end = (done < 300.0 && a == from) || (left < 300.0 && b == to);
                // Walking pace near a gate (the depot yard's limit is
                // 15 km/h); now and then a driver in a hurry.
                speed = if near_end && self.rng.chance(3) {
                    18.0 + self.rng.below(8) as f64
                } else if near_end {
                    6.0 + self.rng.below(10) as f64
                } else if self.rng.below(150) == 0 {
                    // A driver in a hurry on the open road (the demo's
                    // overspeed rule is 70 km/h).
                    72.0 + self.rng.below(15) as f64
                } else {
                    (speed + self.rng.below(21) as f64 - 10.0).clamp(25.0, 60.0)
                };
                let mut step = (speed / 3.6 * self.drive_every as f64).min(left);
                if !near_end && b == to && left > 300.0 {
                    // Slow down at the edge of the destination's zone, not in it.
                    step = step.min(left - 290.0);
                }
                done += step;
                let f = done / leg.max(1.0);
                let next = (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f);
                let h = heading(self.pos, next);
                self.pos = next;
                self.mileage_m += step;
                self.soc = (self.soc - step / 1000.0 * 0.4).max(15.0);
                self.at += Duration::seconds(self.drive_every);
                // Now and then the terminal's emergency button or its
                // collision warning (0x0200 bits 0 and 29).
                self.alarm_bits = match self.rng.below(4000) {
                    0 => 1,
                    1 => 1 << 29,
                    _ => 0,
                };
                self.report(speed, h);
            }
        }
        self.pos = to;
    }

    /// Stands at the current place for `minutes`, a little jitter per report.
    fn stand(&mut self, minutes: i64) {
        let end = self.at + Duration::minutes(minutes);
        let spot = self.pos;
        while self.at + Duration::seconds(self.stand_every) <= end {
            self.at += Duration::seconds(self.stand_every);
            let e = self.rng.below(7) as f64 - 3.0;
            let n = self.rng.below(7) as f64 - 3.0;
            self.pos = offset(spot.0, spot.1, e, n);
            self.report(0.0, 0);
        }
        self.at = end;
        self.pos = spot;
    }

    /// A delivery stop: a refrigerated box sometimes left open too long.
    fn deliver(&mut self, minutes: i64) {
        let warm = self.setpoint.is_some() && self.rng.chance(12);
        if warm {
            self.stand(4);
            self.warm_deci = 70 + self.rng.below(40) as i32;
            self.stand(minutes.max(20) + 10);
            self.warm_deci = 0;
        } else {
            self.stand(minutes);
        }
    }
}

/// The fixes of `vehicle` (the `k`-th of the rounds) on the Shanghai day
/// `day`: out of the depot in the morning, its customers (and sometimes
/// the warehouse) in a varying order, back to the depot; a second, shorter
/// round some afternoons; nothing after `now`.
fn rounds(
    out: &mut Vec<FixRow>,
    enterprise_id: Uuid,
    vehicle: &mut Driven,
    k: usize,
    day: NaiveDate,
    detailed: bool,
    now: DateTime<Utc>,
) {
    let mut rng = Rng::new(
        0x0DE1_1FE5
            ^ (vehicle.id.as_u128() as u64)
            ^ (u64::from(day.num_days_from_ce() as u32) << 20),
    );
    let weekday = day.weekday().number_from_monday();
    if rng.chance(8) || (weekday == 7 && rng.chance(60)) {
        return;
    }
    let city = &CITIES[vehicle.city];
    let place = |i: usize| (city.sites[i].4, city.sites[i].5);
    let depot = place(0);
    // Each vehicle parks at its own spot in the yard.
    let bay = offset(
        depot.0,
        depot.1,
        (k % 5) as f64 * 25.0 - 50.0,
        (k % 3) as f64 * 25.0 - 25.0,
    );
    let midnight = shanghai()
        .from_local_datetime(&day.and_hms_opt(0, 0, 0).unwrap_or_default())
        .single()
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(now);
    let start = midnight + Duration::minutes(7 * 60 + rng.below(90) as i64);
    let mut d = Day {
        out,
        enterprise_id,
        vehicle_id: vehicle.id,
        setpoint: vehicle.setpoint,
        at: start,
        until: now,
        pos: bay,
        mileage_m: vehicle.mileage_m,
        soc: 88.0 + rng.below(10) as f64,
        drive_every: if detailed {
            DRIVE_EVERY_RECENT
        } else {
            DRIVE_EVERY_OLDER
        },
        stand_every: if detailed {
            STAND_EVERY_RECENT
        } else {
            STAND_EVERY_OLDER
        },
        warm_deci: 0,
        alarm_bits: 0,
        rng,
    };
    // Loading at the bay before leaving.
    d.report(0.0, 0);
    d.stand(20);
    let mut stops = vec![1, 2];
    if d.rng.chance(50) {
        stops.swap(0, 1);
    }
    if d.rng.chance(40) {
        // Goods picked up at the warehouse first.
        stops.insert(0, 3);
    }
    for s in stops {
        d.drive(place(s));
        let minutes = if s == 3 {
            30 + d.rng.below(40) as i64
        } else {
            15 + d.rng.below(30) as i64
        };
        d.deliver(minutes);
    }
    d.drive(bay);
    let rest = 60 + d.rng.below(60) as i64;
    d.stand(rest);
    if d.rng.chance(50) {
        let s = 1 + d.rng.below(2) as usize;
        d.drive(place(s));
        let minutes = 15 + d.rng.below(25) as i64;
        d.deliver(minutes);
        d.drive(bay);
    }
    // Parked for the night: a report now and then on detailed days.
    d.report(0.0, 0);
    if detailed {
        let night = (midnight + Duration::hours(24)).min(now);
        while d.at + Duration::minutes(30) < night {
            d.at += Duration::minutes(30);
            d.report(0.0, 0);
        }
    }
    vehicle.mileage_m = d.mileage_m;
}
