//! `fleetdesk simulate`: vehicle terminals for a development stack. It reads
//! the vehicles with an active terminal binding from vehicle's schema and
//! opens one JT/T 808 connection per terminal to the device edge, as real
//! terminals would: registration, authentication, heartbeats, a fix every
//! interval along routes in the vehicle's city (by plate), charging stops,
//! refrigerated vans with box temperatures, blind-zone gaps uploaded later
//! with 0x0704, alarm photos, and honest answers to door commands.
//!
//! Cameras: the first two vehicles of the fleet and every fourth after
//! them (fleet positions 0, 1, 4, 8, 12, …, in the order [`load_fleet`]
//! reads them, see [`camera_channels`]) have a road camera on channel 1
//! and a cab camera on channel 2. They answer the video commands of JT/T
//! 1078 (attributes, live, recordings, playback) with real H.264 from
//! ffmpeg, and raise active-safety alarms (ADAS, DMS) now and then while
//! moving, whose photo and clip they upload when asked (0x9208). The
//! others have no camera and answer every video command "not supported",
//! as camera-less terminals do.
//!
//! - [`motion`]: how a vehicle moves, charges and keeps its box cold;
//! - `terminal`: the protocol side of one terminal, with its video and
//!   alarm-evidence sides;
//! - [`camera`]: a vehicle's cameras, their streams, recordings and clips;
//! - [`photo`]: the JPEG an alarm sends.
//!
//! The terminal phone number is the binding's SIM (the terminal id when no
//! SIM is recorded and it is all digits); the terminal id of the
//! registration is the binding's terminal serial.

pub mod camera;
pub mod motion;
pub mod photo;
mod terminal;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use fleetdesk_kit::{Shutdown, db};
use rand::SeedableRng as _;
use rand::rngs::StdRng;
use sqlx_postgres::PgPool;

pub use motion::Start;

/// Settings of `fleetdesk simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// PostgreSQL URL; the fleet is read from vehicle's schema.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/fleetdesk"
    )]
    pub database_url: String,

    /// How many vehicles (terminals) to simulate at most.
    #[arg(long, default_value_t = 100)]
    pub vehicles: usize,

    /// How many vehicles at the head of the fleet to leave out, so two
    /// simulators (one per device edge) can split one fleet.
    #[arg(long, default_value_t = 0)]
    pub skip: usize,

    /// Address of the JT/T 808 edge (host:port).
    #[arg(
        long,
        env = "FLEETDESK_SIMULATOR_EDGE_ADDR",
        default_value = "127.0.0.1:8808"
    )]
    pub edge_addr: String,

    /// Seconds between two reports of a driving vehicle.
    #[arg(long, default_value_t = 10)]
    pub interval_secs: u64,

    /// Seed of the routes and events (the same seed, the same fleet behaviour).
    #[arg(long, default_value_t = 808)]
    pub seed: u64,
}

/// One simulated vehicle and its terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimVehicle {
    pub vehicle_id: String,
    pub enterprise_id: String,
    pub plate: String,
    /// The terminal's phone number (SIM), digits only.
    pub phone: String,
    /// The terminal's serial, sent in the registration.
    pub terminal_id: String,
    pub refrigerated: bool,
    pub start: Start,
    /// Its camera channels (JT/T 1078 logical channels); empty: no camera.
    pub cameras: Vec<u8>,
    /// Where its odometer starts: the last one the platform stored, so a
    /// restarted simulator drives on from it, else [`demo_odometer_m`].
    pub odometer_m: u64,
}

/// The odometer of a demo vehicle that has never reported: 5,000 to
/// 80,000 km, the same for the same vehicle every time, so that the demo's
/// service history (seeded before any terminal reports) lies behind what
/// its terminal will report.
pub fn demo_odometer_m(vehicle: uuid::Uuid) -> u64 {
    const FROM_M: u64 = 5_000_000;
    const SPAN_M: u64 = 75_000_000;
    FROM_M + (vehicle.as_u128() % u128::from(SPAN_M)) as u64 / 100 * 100
}

/// The camera channels of the vehicle at `position` in the fleet: road
/// (1) and cab (2) for the first two and every fourth, none for the
/// others. Deterministic, so `make run` always gives the same demo
/// vehicles cameras.
pub fn camera_channels(position: usize) -> Vec<u8> {
    if position < 2 || position.is_multiple_of(4) {
        vec![1, 2]
    } else {
        Vec::new()
    }
}

/// How the terminals behave.
#[derive(Debug, Clone)]
pub struct Settings {
    pub edge_addr: String,
    pub interval: Duration,
    pub seed: u64,
    /// Chance per interval that a report carries an alarm and a photo.
    pub alarm_chance: f64,
    /// Chance per driving interval of entering a blind zone.
    pub blind_zone_chance: f64,
    /// Active-safety alarms (ADAS, DMS) a camera vehicle raises per hour
    /// of driving, on average.
    pub safety_alarms_per_hour: f64,
    /// The encoder cameras run; without it their commands are refused.
    pub ffmpeg: PathBuf,
}

impl Settings {
    pub fn new(edge_addr: String, interval: Duration, seed: u64) -> Settings {
        Settings {
            edge_addr,
            interval,
            seed,
            alarm_chance: 0.002,
            blind_zone_chance: 0.005,
            // A few an hour: drivers glance at phones more often than
            // they tailgate (60 % of them are DMS alarms).
            safety_alarms_per_hour: 3.0,
            ffmpeg: PathBuf::from(camera::FFMPEG),
        }
    }
}

/// Reads the fleet, then simulates it until shutdown. Waits for the
/// database (migrated and seeded) when it is not there yet, as `make run`
/// starts the simulator beside a stack that is still loading demo data.
pub async fn run(config: Config, shutdown: Shutdown) -> anyhow::Result<()> {
    let fleet = loop {
        match load(&config.database_url, config.skip, config.vehicles).await {
            Ok(fleet) if !fleet.is_empty() => break fleet,
            Ok(_) => tracing::info!("No vehicle with a bound terminal yet; waiting."),
            Err(err) => {
                tracing::info!(error = %format!("{err:#}"), "Fleet not readable yet; waiting.")
            }
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
            () = shutdown.wait() => return Ok(()),
        }
    };
    tracing::info!(terminals = fleet.len(), edge = %config.edge_addr, "Simulating terminals.");
    let settings = Settings::new(
        config.edge_addr,
        Duration::from_secs(config.interval_secs.max(1)),
        config.seed,
    );
    simulate(fleet, settings, shutdown).await;
    Ok(())
}

async fn load(database_url: &str, skip: usize, limit: usize) -> anyhow::Result<Vec<SimVehicle>> {
    let pool = db::connect(database_url, "vehicle", 2).await?;
    let fleet = load_fleet_from(&pool, skip, limit).await;
    pool.close().await;
    fleet
}

/// Vehicles with an active terminal binding (at most `limit`), their
/// terminal's phone a number a JT/T 808-2019 header can carry.
pub async fn load_fleet(pool: &PgPool, limit: usize) -> anyhow::Result<Vec<SimVehicle>> {
    load_fleet_from(pool, 0, limit).await
}

/// The fleet of [`load_fleet`] past its first `skip` vehicles (at most
/// `limit`), each keeping the cameras of its position in the whole fleet.
pub async fn load_fleet_from(
    pool: &PgPool,
    skip: usize,
    limit: usize,
) -> anyhow::Result<Vec<SimVehicle>> {
    let mut tx = db::begin_service(pool).await?;
    type Row = (
        uuid::Uuid,
        uuid::Uuid,
        String,
        i16,
        String,
        String,
        Option<i64>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "select v.id, v.enterprise_id, v.plate_number, v.category, b.target_id, b.terminal_sim, \
           lp.mileage_m \
         from vehicle_binding b join vehicle v on v.id = b.vehicle_id \
         left join latest_position lp on lp.vehicle_id = v.id \
         where b.kind = 3 and b.unbound_at is null \
         order by v.enterprise_id, v.plate_number offset $1 limit $2",
    )
    .bind(i64::try_from(skip).unwrap_or(i64::MAX))
    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
    .fetch_all(&mut *tx)
    .await
    .context("read terminal bindings")?;
    db::end_read(tx);
    let fleet = rows
        .into_iter()
        .filter_map(
            |(id, enterprise, plate, category, terminal_id, sim, odometer_m)| {
                let phone = [sim.trim(), terminal_id.trim()]
                    .into_iter()
                    .find(|p| {
                        !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit())
                    })?
                    .to_owned();
                // Refrigerated trucks, and one van in five (the cold-chain ones).
                let refrigerated = category == 6 || (category == 5 && id.as_u128() % 5 == 0);
                Some(SimVehicle {
                    vehicle_id: id.to_string(),
                    enterprise_id: enterprise.to_string(),
                    plate,
                    phone,
                    terminal_id,
                    refrigerated,
                    start: Start::Random,
                    cameras: Vec::new(),
                    odometer_m: odometer_m
                        .and_then(|m| u64::try_from(m).ok())
                        .filter(|m| *m > 0)
                        .unwrap_or_else(|| demo_odometer_m(id)),
                })
            },
        )
        .enumerate()
        .map(|(position, vehicle)| SimVehicle {
            cameras: camera_channels(skip + position),
            ..vehicle
        })
        .collect();
    Ok(fleet)
}

/// Runs one terminal per vehicle until shutdown, their starts spread over
/// one interval so the reports do not arrive all at once.
pub async fn simulate(fleet: Vec<SimVehicle>, settings: Settings, shutdown: Shutdown) {
    let settings = Arc::new(settings);
    let count = fleet.len().max(1) as u32;
    let mut tasks = tokio::task::JoinSet::new();
    for (i, vehicle) in fleet.into_iter().enumerate() {
        let settings = settings.clone();
        let stop = shutdown.clone();
        let delay = settings.interval / count * i as u32;
        let seed = settings.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        tasks.spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = stop.wait() => return,
            }
            terminal::Terminal::new(vehicle, StdRng::seed_from_u64(seed))
                .run(&settings, stop)
                .await;
        });
    }
    while tasks.join_next().await.is_some() {}
}
