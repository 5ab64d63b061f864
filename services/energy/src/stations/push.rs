//! The platform's pushes of its locations and tariffs (OCPI's Locations
//! and Tariffs receiver interfaces): a Location, EVSE or Connector PUT or
//! PATCHed, a Tariff PUT or DELETEd, each stored through the same mapping
//! as the sync's pull (a location becomes the station and its connectors,
//! a tariff its elements, components and day of bands), and the objects as
//! stored for the platform's GET.
//!
//! A PATCH older than what is stored (its `last_updated` before the
//! object's) changes nothing; an EVSE or Connector change moves the
//! parents' `last_updated` on, as OCPI has it.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_ocpi::{
    Connector, ConnectorPatch, Evse, EvsePatch, EvseStatus, Location, LocationPatch, Tariff,
};
use sqlx_postgres::{PgConnection, PgPool};

use super::domain::{self, station_id};
use super::store;
use crate::tariffs;

/// What a push came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// Stored (or, for a PATCH older than what is stored, nothing to do);
    /// whether the object is new here.
    Stored { created: bool },
    /// Not an object energy can take (OCPI 2001): why.
    Invalid(String),
    /// The location, or its EVSE or connector, is not known here.
    Unknown,
}

/// Stores a location as given, replacing what was stored.
pub async fn put_location(pool: &PgPool, location: &Location) -> Result<Pushed, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let pushed = write(&mut tx, location).await?;
    tx.commit().await?;
    Ok(pushed)
}

/// Stores an EVSE of a known location, replacing the one of its uid.
pub async fn put_evse(
    pool: &PgPool,
    party_id: &str,
    location_id: &str,
    evse: Evse,
) -> Result<Pushed, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let Some(mut location) =
        store::object_for_update(&mut tx, station_id(party_id, location_id)).await?
    else {
        return Ok(Pushed::Unknown);
    };
    let at = evse.last_updated;
    let uid = evse.uid.clone();
    let created = replace_or_add(&mut location.evses, evse, |e| e.uid == uid);
    location.last_updated = location.last_updated.max(at);
    let pushed = rewritten(&mut tx, &location, created).await?;
    tx.commit().await?;
    Ok(pushed)
}

/// Stores a connector of a known EVSE, replacing the one of its id.
pub async fn put_connector(
    pool: &PgPool,
    party_id: &str,
    location_id: &str,
    evse_uid: &str,
    connector: Connector,
) -> Result<Pushed, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let Some(mut location) =
        store::object_for_update(&mut tx, station_id(party_id, location_id)).await?
    else {
        return Ok(Pushed::Unknown);
    };
    let at = connector.last_updated;
    let Some(evse) = location.evses.iter_mut().find(|e| e.uid == evse_uid) else {
        return Ok(Pushed::Unknown);
    };
    let id = connector.id.clone();
    let created = replace_or_add(&mut evse.connectors, connector, |c| c.id == id);
    evse.last_updated = evse.last_updated.max(at);
    location.last_updated = location.last_updated.max(at);
    let pushed = rewritten(&mut tx, &location, created).await?;
    tx.commit().await?;
    Ok(pushed)
}

/// Puts `item` in place of the one `same` finds, else adds it: true when added.
fn replace_or_add<T>(items: &mut Vec<T>, item: T, same: impl Fn(&T) -> bool) -> bool {
    match items.iter_mut().find(|i| same(i)) {
        Some(stored) => {
            *stored = item;
            false
        }
        None => {
            items.push(item);
            true
        }
    }
}

/// Applies a location PATCH.
pub async fn patch_location(
    pool: &PgPool,
    party_id: &str,
    location_id: &str,
    patch: LocationPatch,
) -> Result<Pushed, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let station = station_id(party_id, location_id);
    let Some(mut location) = store::object_for_update(&mut tx, station).await? else {
        return Ok(Pushed::Unknown);
    };
    if stale(patch.last_updated, location.last_updated) {
        return Ok(Pushed::Stored { created: false });
    }
    patch.apply(&mut location);
    let pushed = rewritten(&mut tx, &location, false).await?;
    tx.commit().await?;
    Ok(pushed)
}

/// Applies an EVSE PATCH. A status push (the common one) changes the
/// EVSE's connectors and its stored status in place.
pub async fn patch_evse(
    pool: &PgPool,
    party_id: &str,
    location_id: &str,
    evse_uid: &str,
    patch: EvsePatch,
) -> Result<Pushed, ServiceError> {
    let station = station_id(party_id, location_id);
    let mut tx = db::begin_service(pool).await?;
    // A removed EVSE takes its connectors away: that is the whole location's.
    if let Some(status) = patch
        .status
        .filter(|s| patch.is_status_only() && *s != EvseStatus::Removed)
        && store::set_evse_state(&mut tx, station, evse_uid, status, patch.last_updated).await?
    {
        tx.commit().await?;
        return Ok(Pushed::Stored { created: false });
    }
    let Some(mut location) = store::object_for_update(&mut tx, station).await? else {
        return Ok(Pushed::Unknown);
    };
    let at = patch.last_updated;
    let Some(evse) = location.evses.iter_mut().find(|e| e.uid == evse_uid) else {
        return Ok(Pushed::Unknown);
    };
    if stale(at, evse.last_updated) {
        return Ok(Pushed::Stored { created: false });
    }
    patch.apply(evse);
    location.last_updated = location.last_updated.max(at);
    let pushed = rewritten(&mut tx, &location, false).await?;
    tx.commit().await?;
    Ok(pushed)
}

/// Applies a connector PATCH (a new tariff, say).
pub async fn patch_connector(
    pool: &PgPool,
    party_id: &str,
    location_id: &str,
    evse_uid: &str,
    connector_id: &str,
    patch: ConnectorPatch,
) -> Result<Pushed, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let station = station_id(party_id, location_id);
    let Some(mut location) = store::object_for_update(&mut tx, station).await? else {
        return Ok(Pushed::Unknown);
    };
    let at = patch.last_updated;
    let Some(evse) = location.evses.iter_mut().find(|e| e.uid == evse_uid) else {
        return Ok(Pushed::Unknown);
    };
    let Some(connector) = evse.connectors.iter_mut().find(|c| c.id == connector_id) else {
        return Ok(Pushed::Unknown);
    };
    if stale(at, connector.last_updated) {
        return Ok(Pushed::Stored { created: false });
    }
    patch.apply(connector);
    evse.last_updated = evse.last_updated.max(at);
    location.last_updated = location.last_updated.max(at);
    let pushed = rewritten(&mut tx, &location, false).await?;
    tx.commit().await?;
    Ok(pushed)
}

/// The location as stored, if known here.
pub async fn location(
    pool: &PgPool,
    party_id: &str,
    location_id: &str,
) -> Result<Option<Location>, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let location = store::object(&mut tx, station_id(party_id, location_id)).await?;
    db::end_read(tx);
    Ok(location)
}

/// Stores a tariff as given, replacing what was stored.
pub async fn put_tariff(pool: &PgPool, tariff: &Tariff) -> Result<Pushed, ServiceError> {
    let periods = match tariffs::domain::periods(tariff) {
        Ok(periods) => periods,
        Err(reason) => return Ok(Pushed::Invalid(reason)),
    };
    let mut tx = db::begin_service(pool).await?;
    let created = tariffs::store::upsert(&mut tx, tariff, &periods).await?;
    tx.commit().await?;
    Ok(Pushed::Stored { created })
}

/// Removes a tariff; whether it was here.
pub async fn delete_tariff(
    pool: &PgPool,
    party_id: &str,
    tariff_id: &str,
) -> Result<bool, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let deleted = tariffs::store::delete(&mut tx, party_id, tariff_id).await?;
    tx.commit().await?;
    Ok(deleted)
}

/// The tariff as stored, if known here.
pub async fn tariff(
    pool: &PgPool,
    party_id: &str,
    tariff_id: &str,
) -> Result<Option<Tariff>, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let tariff = tariffs::store::object(&mut tx, party_id, tariff_id).await?;
    db::end_read(tx);
    Ok(tariff)
}

/// A PATCH made before what is stored last changed.
fn stale(patched: DateTime<Utc>, stored: DateTime<Utc>) -> bool {
    if patched < stored {
        tracing::debug!(%patched, %stored, "An older PATCH ignored.");
        return true;
    }
    false
}

/// Writes a location as a station with its connectors.
async fn write(conn: &mut PgConnection, location: &Location) -> Result<Pushed, ServiceError> {
    match domain::draft(location) {
        Ok(draft) => Ok(Pushed::Stored {
            created: store::upsert(conn, &draft, location).await?,
        }),
        Err(reason) => Ok(Pushed::Invalid(reason)),
    }
}

/// Writes a stored location again after a change to it; `created` says
/// whether the changed part is new.
async fn rewritten(
    conn: &mut PgConnection,
    location: &Location,
    created: bool,
) -> Result<Pushed, ServiceError> {
    Ok(match write(conn, location).await? {
        Pushed::Stored { .. } => Pushed::Stored { created },
        other => other,
    })
}
