//! Demo and scale data, outside the service libraries: what `fleetdesk seed`
//! and `fleetdesk all --demo` load for a first look, and the volumes the
//! benchmarks run on (`seed --vehicles N`). Each service's data is written
//! into its own schema as its owner, in the order the services depend on
//! each other: auth and org, then vehicles, then energy.
//!
//! Every step is deterministic (ids from `kit::demo_id`, seeded generators)
//! and idempotent, so a second run changes nothing.

pub mod auth;
pub mod energy;
pub mod org;
pub mod vehicle;

use anyhow::Context as _;
use fleetdesk_kit::config::CommonConfig;
use fleetdesk_kit::db;

/// The demo accounts, enterprises, organisations, roles and users (idempotent).
pub async fn identity(common: &CommonConfig) -> anyhow::Result<()> {
    let auth = db::connect_owner(&common.database_url, fleetdesk_auth::SCHEMA.name, 2).await?;
    auth::run(&auth).await.context("seed auth")?;
    let org = db::connect_owner(&common.database_url, fleetdesk_org::SCHEMA.name, 2).await?;
    org::run(&org).await.context("seed org")?;
    tracing::info!("Demo data loaded.");
    Ok(())
}

/// The demo enterprise's vehicles, drivers and usage records (idempotent);
/// `seed` and `all --demo` load them after [`identity`].
pub async fn vehicles(common: &CommonConfig) -> anyhow::Result<()> {
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    vehicle::run(&vehicle).await.context("seed vehicle")?;
    Ok(())
}

/// Demo cards: this many of the demo enterprise's vehicles and drivers.
const DEMO_CARD_VEHICLES: i64 = 60;
const DEMO_CARD_DRIVERS: i64 = 20;

/// The demo enterprise's charging data (idempotent): opened with a seeded
/// main balance, allocations down its tree and cards for part of its fleet
/// (read from the demo vehicles); demo enterprise B stays unopened.
/// `seed` and `all --demo` load it after [`vehicles`].
pub async fn energy(common: &CommonConfig) -> anyhow::Result<()> {
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    let enterprise = fleetdesk_kit::demo_id("enterprise:a");
    let vehicles: Vec<(uuid::Uuid, String, uuid::Uuid)> = sqlx::query_as(
        "select id, plate_number, org_id from vehicle where enterprise_id = $1 \
         order by plate_number limit $2",
    )
    .bind(enterprise)
    .bind(DEMO_CARD_VEHICLES)
    .fetch_all(&vehicle)
    .await?;
    let drivers: Vec<(uuid::Uuid, String, uuid::Uuid)> = sqlx::query_as(
        "select id, name, org_id from driver where enterprise_id = $1 order by id limit $2",
    )
    .bind(enterprise)
    .bind(DEMO_CARD_DRIVERS)
    .fetch_all(&vehicle)
    .await?;
    vehicle.close().await;
    let energy = db::connect_owner(&common.database_url, fleetdesk_energy::SCHEMA.name, 2).await?;
    energy::run(
        &energy,
        &vehicles
            .into_iter()
            .map(|(id, plate_number, org_id)| energy::DemoVehicle {
                id,
                plate_number,
                org_id,
            })
            .collect::<Vec<_>>(),
        &drivers
            .into_iter()
            .map(|(id, name, org_id)| energy::DemoDriver { id, name, org_id })
            .collect::<Vec<_>>(),
    )
    .await
    .context("seed energy")
}

/// Most vehicles `seed --vehicles` generates.
pub const MAX_SCALE_VEHICLES: usize = 1_000_000;

/// Scale data (`seed --vehicles N`): org's 200 scale enterprises (demo
/// enterprise A the largest, with a tenth), then N vehicles over them by COPY.
/// Idempotent per enterprise. Prints rows/s.
pub async fn scale(common: &CommonConfig, vehicles: usize) -> anyhow::Result<()> {
    anyhow::ensure!(
        vehicles <= MAX_SCALE_VEHICLES,
        "--vehicles takes at most {MAX_SCALE_VEHICLES}"
    );
    let org = db::connect_owner(&common.database_url, fleetdesk_org::SCHEMA.name, 2).await?;
    let tenants = org::scale::run(&org)
        .await
        .context("seed scale enterprises")?;
    let sizes = vehicle::split(vehicles, tenants.len());
    let tenants: Vec<vehicle::ScaleTenant> = tenants
        .into_iter()
        .zip(sizes)
        .enumerate()
        .map(|(i, (t, size))| vehicle::ScaleTenant {
            enterprise_id: t.enterprise_id,
            org_ids: t.org_ids,
            creator: t.creator,
            name: t.name,
            // The demo enterprise already holds the demo vehicles.
            vehicles: if i == 0 {
                size.saturating_sub(vehicle::DEMO_VEHICLES)
            } else {
                size
            },
        })
        .collect();
    let pool = db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    let report = vehicle::scale(&pool, &tenants)
        .await
        .context("seed scale vehicles")?;
    println!(
        "scale seed: {} vehicles written, {} already there, {:.1} s, {:.0} rows/s",
        report.written,
        report.skipped,
        report.seconds,
        report.rows_per_second()
    );
    Ok(())
}
