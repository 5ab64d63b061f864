//! Demo and scale data, outside the service libraries: what `fleetdesk seed`
//! and `fleetdesk all --demo` load for a first look, and the volumes the
//! benchmarks run on (`seed --vehicles N`). Each service's data is written
//! into its own schema as its owner, in the order the services depend on
//! each other: auth and org, then vehicles; then, at once where they do not
//! read each other's rows, energy, the history (telemetry, charging
//! sessions), the records, the fleet's upkeep, finance and the documents
//! ([`demo`]).
//!
//! Every step is deterministic (ids from `kit::demo_id`, seeded generators)
//! and idempotent, so a second run changes nothing.

pub mod auth;
pub mod charging_history;
pub mod driver_images;
pub mod energy;
pub mod finance;
pub mod finance_coupons;
pub mod finance_invoices;
pub mod finance_payments;
pub mod inspections;
pub mod insurance;
pub mod maintenance;
pub mod org;
pub mod records;
pub mod repairs;
pub mod risk;
pub mod telemetry;
pub mod vehicle;
pub mod violations;

use anyhow::Context as _;
use fleetdesk_kit::config::CommonConfig;
use fleetdesk_kit::db;

/// The demo administrator of enterprise A (`demo`, every permission, the
/// whole tree) as the services' stores take their caller: who the demo
/// data says made what it made.
pub fn demo_admin() -> fleetdesk_kit::actor::Actor {
    let eid = fleetdesk_kit::demo_id("enterprise:a");
    fleetdesk_kit::actor::Actor {
        enterprise_id: eid,
        user_id: Some(fleetdesk_kit::demo_id(&format!("member:{eid}:demo"))),
        name: "演示管理员".to_owned(),
        reach: fleetdesk_kit::reach::ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    }
}

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

/// An owner pool of `schema` for writing history in many small
/// transactions: commits do not wait for the WAL flush (`synchronous_commit
/// off`; a crash loses at most the last moments of a seed, which a rerun
/// completes, as every step is idempotent).
async fn connect_bulk(
    common: &CommonConfig,
    schema: &str,
    max_connections: u32,
) -> anyhow::Result<sqlx_postgres::PgPool> {
    let url = &common.database_url;
    let glue = if url.contains('?') { '&' } else { '?' };
    let url = format!("{url}{glue}options=-c%20synchronous_commit%3Doff");
    db::connect_owner(&url, schema, max_connections).await
}

/// The demo enterprise's telemetry (idempotent): fences, temperature bands
/// and three weeks of position, crossing and temperature history, up to
/// now. `seed` and `all --demo` load it after [`vehicles`].
pub async fn telemetry(common: &CommonConfig) -> anyhow::Result<()> {
    let vehicle = connect_bulk(common, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    telemetry::run(&vehicle, chrono::Utc::now())
        .await
        .context("seed telemetry")?;
    Ok(())
}

/// The demo enterprise's records the history does not produce (idempotent):
/// private cars, temperature share links, lock commands, customer-service
/// records, accidents, a warnings round and a year of maintenance. `seed`
/// and `all --demo` load them after [`telemetry`] (service records name its
/// alarms; maintenance reminders are judged by the odometer its rounds
/// drove).
pub async fn records(common: &CommonConfig) -> anyhow::Result<()> {
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    records::run(&vehicle, chrono::Utc::now())
        .await
        .context("seed records")?;
    maintenance::run(&vehicle, chrono::Utc::now())
        .await
        .context("seed maintenance")?;
    Ok(())
}

/// The demo fleet's upkeep (idempotent): a year of traffic violations, of
/// repair orders and of annual inspections, after [`vehicles`]. The
/// inspections (a few statements per vehicle, the longest step of the
/// demo) run beside the other two.
pub async fn upkeep(common: &CommonConfig) -> anyhow::Result<()> {
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    let now = chrono::Utc::now();
    tokio::try_join!(
        async {
            violations::run(&vehicle, now)
                .await
                .context("seed violations")?;
            repairs::run(&vehicle, now).await.context("seed repairs")
        },
        async {
            inspections::run(&vehicle, now)
                .await
                .context("seed inspections")
        },
    )?;
    Ok(())
}

/// Everything `all --demo` loads (idempotent); `seed` loads the same but
/// the files, which need the object store at `object_store_dir`. After the
/// identity and the vehicles, which every later step reads, the steps that
/// do not read each other's rows run at once: each mostly waits on
/// PostgreSQL or leaves it idle, and `all --demo` reached its gateway 23 s
/// after start one after another, 15 s so (two cores). Charging history
/// waits for energy's cards and for telemetry (its settled sessions are
/// counted into the days telemetry writes).
pub async fn demo(
    common: &CommonConfig,
    object_store_dir: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    identity(common).await?;
    vehicles(common).await?;
    let history = async {
        tokio::try_join!(energy(common), telemetry(common))?;
        tokio::try_join!(charging_history(common), async {
            records(common).await?;
            match object_store_dir {
                Some(dir) => alarm_evidence(common, dir).await,
                None => Ok(()),
            }
        })?;
        anyhow::Ok(())
    };
    let documents = async {
        let Some(dir) = object_store_dir else {
            return anyhow::Ok(());
        };
        driver_images(common, dir).await?;
        insurance(common, dir).await
    };
    tokio::try_join!(history, upkeep(common), finance(common), documents)?;
    Ok(())
}

/// The demo enterprise's bills of the last twelve months in every state,
/// its orders, its prepaid balance, payments and a refund, invoice titles,
/// addresses and invoice applications, the coupons the operator granted
/// (idempotent), for the demo vehicles; `seed` and `all --demo` load them
/// after [`vehicles`].
pub async fn finance(common: &CommonConfig) -> anyhow::Result<()> {
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    let finance =
        db::connect_owner(&common.database_url, fleetdesk_finance::SCHEMA.name, 2).await?;
    let report = finance::run(&finance, &vehicle, chrono::Utc::now())
        .await
        .context("seed finance")?;
    tracing::info!(
        bills = report.bills,
        orders = report.orders,
        "Demo bills loaded."
    );
    let invoices = finance_invoices::run(&finance, chrono::Utc::now())
        .await
        .context("seed finance invoices")?;
    tracing::info!(
        titles = invoices.titles,
        applications = invoices.applications,
        "Demo invoice titles, addresses and applications loaded."
    );
    let money = finance_payments::run(&finance, chrono::Utc::now())
        .await
        .context("seed finance payments")?;
    tracing::info!(
        payments = money.payments,
        refunds = money.refunds,
        "Demo balance, payments and refund loaded."
    );
    let coupons = finance_coupons::run(&finance, chrono::Utc::now())
        .await
        .context("seed finance coupons")?;
    tracing::info!(coupons, "Demo coupons loaded.");
    Ok(())
}

/// The demo enterprise's charging sessions of the last month (idempotent),
/// through energy's session path; `seed` and `all --demo` load it after
/// [`energy`]. The settled sessions' events wait in energy's outbox until
/// the stack runs, which may be after the vehicle target's consumer of them
/// was first made (it takes only events published after it): the operation
/// log takes them here, by their event ids, so each counts once whichever
/// path sees it first.
pub async fn charging_history(common: &CommonConfig) -> anyhow::Result<()> {
    let energy = connect_bulk(common, fleetdesk_energy::SCHEMA.name, 4).await?;
    charging_history::run(&energy, chrono::Utc::now())
        .await
        .context("seed charging history")?;
    let settled: Vec<(uuid::Uuid, Vec<u8>)> =
        sqlx::query_as("select id, payload from outbox where subject = $1 order by created_at")
            .bind(fleetdesk_kit::subjects::ENERGY_SESSION_SETTLED)
            .fetch_all(&energy)
            .await
            .context("read settled sessions")?;
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    let applied = fleetdesk_telemetry::operation::charging::catch_up(&vehicle, &settled)
        .await
        .context("seed operation log charges")?;
    tracing::info!(applied, "Settled sessions counted in the operation log.");
    Ok(())
}

/// Document images of the demo enterprise's first drivers, stored in the
/// object store at `object_store_dir` (idempotent); after [`vehicles`].
pub async fn driver_images(
    common: &CommonConfig,
    object_store_dir: &std::path::Path,
) -> anyhow::Result<()> {
    let store = fleetdesk_kit::files::FileStore::local(object_store_dir)?;
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    driver_images::run(&vehicle, &store)
        .await
        .context("seed driver images")?;
    Ok(())
}

/// Demo active-safety alarms with their photos and clips in the object store
/// at `object_store_dir` (idempotent); after [`telemetry`].
pub async fn alarm_evidence(
    common: &CommonConfig,
    object_store_dir: &std::path::Path,
) -> anyhow::Result<()> {
    let store = fleetdesk_kit::files::FileStore::local(object_store_dir)?;
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    risk::evidence(&vehicle, &store, chrono::Utc::now())
        .await
        .context("seed alarm evidence")?;
    Ok(())
}

/// Demo insurance policies of the demo fleet with their PDF documents in
/// the object store at `object_store_dir` (idempotent); after [`vehicles`].
pub async fn insurance(
    common: &CommonConfig,
    object_store_dir: &std::path::Path,
) -> anyhow::Result<()> {
    let store = fleetdesk_kit::files::FileStore::local(object_store_dir)?;
    let vehicle =
        db::connect_owner(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    insurance::run(&vehicle, &store, chrono::Utc::now())
        .await
        .context("seed insurance")?;
    Ok(())
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

#[cfg(test)]
mod tests {
    use fleetdesk_kit::config::{CommonConfig, Environment};

    #[tokio::test]
    async fn bulk_pools_keep_their_schema_and_do_not_wait_for_the_wal_flush() {
        let test_db = fleetdesk_testkit::TestDb::new().await;
        let common = CommonConfig {
            database_url: test_db.url.clone(),
            nats_url: String::new(),
            internal_signing_key: None,
            environment: Environment::Development,
            db_max_connections: 1,
        };
        let pool = super::connect_bulk(&common, "vehicle", 1).await.unwrap();
        let commit: String = sqlx::query_scalar("show synchronous_commit")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(commit, "off");
        let path: String = sqlx::query_scalar("show search_path")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(path, "vehicle");
    }
}
