//! Keeping stations and tariffs in step with the platform: a full pull of
//! its tariffs and locations on start and then every interval, and a single
//! location fetched when a session or a push names one not seen yet (the
//! pushes themselves are [`super::push`]'s).

use std::time::Duration;

use fleetdesk_kit::{ServiceError, Shutdown, db};
use fleetdesk_ocpi::{Location, Tariff};
use sqlx_postgres::{PgConnection, PgPool};

use super::domain;
use super::store;
use crate::platform::client::Cpo;
use crate::tariffs;

/// Writes tariffs and then locations (a station names its tariff);
/// objects that do not read are logged and skipped.
async fn write(
    conn: &mut PgConnection,
    tariffs: &[Tariff],
    locations: &[Location],
) -> Result<usize, ServiceError> {
    for t in tariffs {
        match tariffs::domain::periods(t) {
            Ok(periods) => {
                tariffs::store::upsert(conn, t, &periods).await?;
            }
            Err(reason) => tracing::warn!(tariff = %t.id, %reason, "Tariff skipped."),
        }
    }
    let mut written = 0;
    for l in locations {
        match domain::draft(l) {
            Ok(draft) => {
                store::upsert(conn, &draft, l).await?;
                written += 1;
            }
            Err(reason) => tracing::warn!(location = %l.id, %reason, "Location skipped."),
        }
    }
    Ok(written)
}

/// Pulls every tariff and location of the platform; the number of stations written.
pub async fn pull(pool: &PgPool, cpo: &Cpo) -> anyhow::Result<usize> {
    let tariffs = cpo.tariffs().await?;
    let locations: Vec<Location> = cpo
        .locations()
        .await?
        .into_iter()
        .filter(|l| l.party_id == cpo.party_id)
        .collect();
    let mut tx = db::begin_service(pool).await?;
    let written = write(&mut tx, &tariffs, &locations).await?;
    tx.commit().await?;
    Ok(written)
}

/// Pulls on start (again soon while the platform is not reachable) and then
/// every `every`, until shutdown.
pub async fn run(pool: PgPool, cpo: Cpo, every: Duration, shutdown: Shutdown) {
    let mut retry = Duration::from_secs(1);
    loop {
        let wait = match pull(&pool, &cpo).await {
            Ok(stations) => {
                tracing::info!(stations, "Stations synced from the charging platform.");
                retry = Duration::from_secs(1);
                every
            }
            Err(err) => {
                tracing::warn!(error = %format!("{err:#}"), "Station sync failed; retrying.");
                retry = (retry * 2).min(every);
                retry
            }
        };
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = shutdown.wait() => return,
        }
    }
}

/// Makes sure the platform's location is known here, fetching it (with the
/// tariffs) when not; a platform that cannot answer leaves it unknown.
pub async fn ensure(pool: &PgPool, cpo: &Cpo, location_id: &str) -> Result<(), ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    if store::known(&mut tx, &cpo.party_id, location_id).await? {
        return Ok(());
    }
    let fetched =
        async { Ok::<_, anyhow::Error>((cpo.tariffs().await?, cpo.location(location_id).await?)) }
            .await;
    match fetched {
        Ok((tariffs, location)) if location.party_id == cpo.party_id => {
            write(&mut tx, &tariffs, &[location]).await?;
            tx.commit().await?;
        }
        Ok(_) => tracing::warn!(
            location = location_id,
            "A location of another party ignored."
        ),
        Err(err) => {
            tracing::warn!(location = location_id, error = %format!("{err:#}"), "Location not fetched.")
        }
    }
    Ok(())
}
